import { WIRE_WRITES, type WireWrite } from '../../kernel/vocabulary.js';
import type { PointFaultAction } from '../action.js';

type DropReply = { type: 'drop_reply'; rule: string } & ({ command: string; within?: string } | { write: WireWrite });

/**
 * drop_reply: armed at the point, the reply to the process's next request
 * named `command` (a PostgreSQL statement such as COMMIT, a Redis command or a
 * BullMQ script such as moveToFinished) is swallowed and that connection reset:
 * the request ran on the server, and the process never hears whether it did.
 * Its outcome is indefinite: the queue must neither lose the job nor run it
 * again as if the write had failed. A drop that finds no such request before
 * the drill ends did nothing, and the drill says so (the fault never fired).
 */
export const dropReply: PointFaultAction<'drop_reply', DropReply> = {
  name: 'drop_reply',
  summary:
    "swallow the reply to the process's next request named command (COMMIT, moveToFinished...) and reset that connection: it ran, and nobody hears",
  fields: {
    write: {
      kind: 'text',
      required: false,
      describe: `${WIRE_WRITES.join(', ')}: the request the drill's queue says carries that write (on any queue that names it; give this or command)`,
    },
    command: {
      kind: 'text',
      required: false,
      describe:
        'the request whose reply is lost: the start of a PostgreSQL statement (COMMIT), a Redis command, or a script its queue names (moveToFinished)',
    },
    within: {
      kind: 'text',
      required: false,
      describe:
        "only a request whose transaction ran a statement holding this text (PostgreSQL: a COMMIT after status = 'done') or whose arguments hold it (Redis)",
    },
  },
  holds: false,
  stopsHolder: false,
  network: true,
  checkArg: (arg) => {
    if (arg?.write !== undefined) {
      if (!(WIRE_WRITES as readonly unknown[]).includes(arg.write)) return `drop_reply's write is one of ${WIRE_WRITES.join(', ')}`;
      if (arg.command !== undefined || arg.within !== undefined) return 'drop_reply takes write, or command (and within), not both';
      return null;
    }
    if (typeof arg?.command !== 'string' || arg.command.trim() === '')
      return 'drop_reply needs arg.write or arg.command: the request whose reply is lost';
    if (arg.within !== undefined && (typeof arg.within !== 'string' || arg.within === '')) return "drop_reply's within is a text";
    return null;
  },
  resolve: (arg, rule) =>
    arg?.write !== undefined
      ? { type: 'drop_reply', write: arg.write as WireWrite, rule: rule.id }
      : {
          type: 'drop_reply',
          command: (arg!.command as string).trim(),
          ...(arg?.within === undefined ? {} : { within: arg.within as string }),
          rule: rule.id,
        },
  async fire(action, control) {
    const { type: _type, rule, ...target } = action;
    control.network().dropReply(target, rule);
    control.answer({ action: 'continue' });
  },
  isAnswer: () => false,
  carryOut: async () => undefined,
  timeline: (action, where) => [{ kind: 'network', detail: `the reply to its next ${requestText(action)} to be lost, armed at ${where}` }],
  // Explore draws it as the loss of the reply to a worker's complete, only on a queue reached over the network that
  // names the request carrying that write (src/explore/action-scope.ts).
  explore: (fc) => fc.constant({ write: 'complete' }),
  // Not in the exhaustive matrix: it runs on any queue, and an embedded one has no network.
  exhaustive: [],
};

/** The request a drop aims at, for a person: "complete write", "COMMIT (with status = 'done')". */
function requestText(action: DropReply): string {
  if ('write' in action) return `${action.write} write`;
  return `${action.command}${action.within ? ` (with ${action.within})` : ''}`;
}
