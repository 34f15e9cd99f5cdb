/**
 * The name the drill gives its own approvals (a prepared step that waits for
 * a person, approved when the scenario says `approve: true`): a checkpoint
 * written by `human:drill` is the harness's decision, not a person's, and the
 * report says so.
 */
export const DRILL_APPROVER = 'drill';
