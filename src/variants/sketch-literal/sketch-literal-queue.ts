import { SqliteQueue } from '../../reference/sqlite/sqlite-queue.js';
import { sketchLiteralClaim } from './claim.js';
import { unfencedWrite } from './unfenced-write.js';

/**
 * The queue exactly as the queue sketch has it, bugs included, kept so the shipped
 * drill can prove it catches them: its claim never takes a crashed worker's job
 * back (without a coordinator it stays `running` forever), and a write whose
 * lease was lost passes silently. The queue sketch has no coordinator; where a drill
 * runs the transaction sketch's, that coordinator still sweeps expired leases, which is how a
 * zombie worker comes to write after its lease moved on.
 */
export class SketchLiteralQueue extends SqliteQueue {
  protected override readonly write = unfencedWrite;
  protected override readonly claimer = sketchLiteralClaim;
}
