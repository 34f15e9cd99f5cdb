/**
 * The jobKeyMode the adapter enqueues with (written into the report's
 * mapping): unsafe_dedupe keeps the job that is there, where the default
 * replace would reset a waiting job and add a second one beside a running
 * job (graphile/worker#303). Its own module, so the fit reads it without
 * loading graphile-worker.
 */
export const JOB_KEY_MODE = 'unsafe_dedupe';
