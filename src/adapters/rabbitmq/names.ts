import { runIdName } from '../run-name.js';

/** The queues and exchange of one drill, all named from its prefix. */
export interface DrillQueues {
  /** The work queue the producers publish to and the workers consume from. */
  work: string;
  /** Where RabbitMQ dead-letters a message (rejected, or past its delivery limit): the drill's review. */
  deadLetterExchange: string;
  deadLetters: string;
}

/** The name prefix of one drill's queues: `qd.`, then the run id made readable and hashed (../run-name.ts). */
export function prefixFor(runId: string): string {
  return runIdName(runId, 'qd.');
}

export function queuesOf(prefix: string): DrillQueues {
  return { work: `${prefix}.work`, deadLetterExchange: `${prefix}.dlx`, deadLetters: `${prefix}.dead` };
}
