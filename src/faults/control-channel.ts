import type { Duplex } from 'node:stream';

/** A process whose failpoints a controller answers: the supervisor's Child is one. */
export interface ControlledChild {
  name: string;
  incarnation: number;
  pid: number;
}

/** Serves one child's control channel; stopped when the child exits. */
export interface ControlHandler {
  stop(): void;
}

/** Makes the handler for a freshly spawned child's control channel (src/faults/controller.ts's controlWith makes one). */
export type ControlFactory = (child: ControlledChild, channel: Duplex) => ControlHandler;
