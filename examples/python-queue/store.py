"""The queue itself: the queue sketch's SQLite job queue (docs/design.md#origin), built right.

One SQLite file holds the jobs, their history and nothing else (the saga's
checkpoints live beside the run, in the drill's own file). Every operation is
one BEGIN IMMEDIATE transaction, so no other writer slips between a look-up
and the write that depends on it. What the seed's sketch got wrong, and this
file does differently:

- a crashed worker's job is not stuck in `running`: every claim first takes
  back expired leases (to `retry`, or to `review` on the last attempt);
- every claim bumps the job's epoch (`lease_fence`), and every write of a
  holder is guarded by job, holder and epoch; a write the guard refuses
  changes nothing, is recorded in the history as `refused`, and is reported
  to the caller as refused, never passed over as "0 rows";
- attempts are counted at the claim, so a worker that dies mid-job still
  uses one up;
- times are one fixed-width UTC text form written by this code (never
  CURRENT_TIMESTAMP), so string order is time order;
- the retry delay doubles from the base to the cap, with jitter from a seeded
  source, and is recorded with the release;
- nothing leaves `review` but a person's requeue (a trigger refuses any other
  way out), and every state change lands in the history in the same
  transaction.

The state machine (the drill's, src/queue/states.ts):

  (new) -> pending -> running -> done
                      running -> retry | review | compensating
                      retry -> running; compensating -> review
                      review -> pending (a person only)
"""

import os
import re
import sqlite3
import time

ALLOWED = [
    ("pending", "running"),
    ("retry", "running"),
    ("running", "done"),
    ("running", "retry"),
    ("running", "review"),
    ("running", "compensating"),
    ("compensating", "review"),
    ("review", "pending"),
]

SCHEMA = """
CREATE TABLE IF NOT EXISTS agent_jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  idempotency_key TEXT NOT NULL UNIQUE,
  action TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'running', 'retry', 'done', 'review', 'compensating')),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),
  leased_by TEXT,
  lease_until TEXT,
  next_run_at TEXT NOT NULL,
  result_digest TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  lease_fence INTEGER NOT NULL DEFAULT 0,
  review_reason TEXT,
  outcome TEXT CHECK (outcome IS NULL OR outcome IN
    ('done', 'review', 'awaiting_approval', 'compensated', 'compensation_failed'))
);
CREATE INDEX IF NOT EXISTS idx_agent_jobs_ready ON agent_jobs(status, next_run_at, lease_until);
CREATE TABLE IF NOT EXISTS agent_job_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES agent_jobs(id),
  kind TEXT NOT NULL CHECK (kind IN ('transition', 'refused')),
  from_status TEXT,
  to_status TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  fence INTEGER NOT NULL,
  worker TEXT,
  actor TEXT NOT NULL CHECK (actor IN ('producer', 'worker', 'coordinator', 'human')),
  reason TEXT NOT NULL,
  at TEXT NOT NULL,
  delay_ms INTEGER
);
CREATE INDEX IF NOT EXISTS idx_agent_job_events_job ON agent_job_events(job_id, id);
CREATE TABLE IF NOT EXISTS agent_tx_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES agent_jobs(id),
  step_id TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('execute', 'reconcile', 'prepare', 'approve', 'requeue', 'compensate')),
  idempotency_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('started', 'success', 'failed', 'unknown', 'not_executed', 'skipped')),
  external_reference TEXT,
  compensation_status TEXT,
  attempt INTEGER NOT NULL,
  epoch INTEGER NOT NULL,
  worker TEXT NOT NULL,
  detail TEXT,
  error_kind TEXT,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_agent_tx_log_job ON agent_tx_log(job_id, step_id, id);
CREATE TABLE IF NOT EXISTS agent_incidents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL REFERENCES agent_jobs(id),
  step_id TEXT NOT NULL,
  error TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'manual_recovery_required',
  at TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS agent_jobs_allowed_transitions
BEFORE UPDATE OF status ON agent_jobs
WHEN NEW.status IS NOT OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (%s)
BEGIN
  SELECT RAISE(ABORT, 'transition not allowed');
END;
""" % ", ".join("'%s>%s'" % edge for edge in ALLOWED)

DIGEST = re.compile(r"^[0-9a-f]{64}$")
# Long before any clock a drill uses: no skew margin brings it back.
LONG_AGO = "1970-01-01T00:00:00.000Z"
# A holder's write is guarded by all three: the job, the holder, this claim's epoch.
FENCED = ("id = :job_id AND status IN ('running', 'compensating') "
          "AND leased_by = :holder AND lease_fence = :epoch")


def utc(ms):
    """Fixed-width UTC text, e.g. 2026-08-25T10:00:00.000Z: string order is time order."""
    ms = int(ms)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


class LeaseLost(Exception):
    """A holder's write refused: its lease was lost. Recorded in the history before it is raised."""


class BadRequest(Exception):
    """A request the queue will not carry out as asked (nothing was written)."""


class NotApplied(Exception):
    """The store failed before its transaction committed: the change certainly did not happen."""


class MaybeApplied(Exception):
    """The store failed at the commit itself: the change may or may not have happened."""


class Store:
    """One process's connection to the queue file."""

    def __init__(self, path, lease_ms, skew_margin_ms, retry_delay, rng, create=False):
        # Only provision makes the file and its schema (WAL is a property of the file from then on): a drill's
        # processes open it all at once, and a schema statement is a write that would queue them behind each other.
        if not create and not os.path.exists(path):
            raise BadRequest("no queue at %s: provision makes one" % path)
        self.db = sqlite3.connect(path, timeout=10, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA busy_timeout = 10000")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute("PRAGMA foreign_keys = ON")
        if create:
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.executescript(SCHEMA)
        self.lease_ms = lease_ms
        self.skew_margin_ms = skew_margin_ms
        self.retry_delay = retry_delay
        self.rng = rng

    def close(self):
        self.db.close()

    def _tx(self, work):
        """Runs `work` in one immediate write transaction: all of it commits, or none."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise NotApplied(str(error)) from error
        try:
            result = work()
        except BaseException as error:
            self.db.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error):
                raise NotApplied(str(error)) from error
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as error:
            raise MaybeApplied(str(error)) from error
        return result

    def _event(self, job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, at, delay_ms=None):
        if kind == "transition" and from_status is not None and (from_status, to_status) not in ALLOWED:
            raise AssertionError("transition %s -> %s is not allowed" % (from_status, to_status))
        self.db.execute(
            "INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, at, delay_ms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, at, delay_ms),
        )

    # -- producer ---------------------------------------------------------

    def enqueue(self, key, action, payload_json, max_attempts, now):
        """Adds a job unless its key is taken: the UNIQUE key decides, in the insert itself."""
        at = utc(now)

        def work():
            row = self.db.execute(
                "INSERT INTO agent_jobs (idempotency_key, action, payload_json, max_attempts, next_run_at, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id",
                (key, action, payload_json, max_attempts, at, at, at),
            ).fetchone()
            if row is None:
                existing = self.db.execute("SELECT id FROM agent_jobs WHERE idempotency_key = ?", (key,)).fetchone()
                return False, existing["id"]
            self._event(row["id"], "transition", None, "pending", 0, 0, None, "producer", "enqueued", at)
            return True, row["id"]

        return self._tx(work)

    # -- the lease ----------------------------------------------------------

    def _sweep(self, now, actor, worker):
        """Takes back every expired lease (to retry, or review on the last attempt); inside the caller's transaction."""
        moved = 0
        for job in self._expired(now):
            if self._release(job, default_release(job), now, actor, worker):
                moved += 1
        return moved

    def _expired(self, now):
        return self.db.execute(
            "SELECT * FROM agent_jobs WHERE status = 'running' AND lease_until < ? ORDER BY id",
            (utc(now - self.skew_margin_ms),),
        ).fetchall()

    def _release(self, job, release, now, actor, worker):
        """Releases one expired lease if it is still the same one (same epoch, still expired)."""
        to, reason = release
        at = utc(now)
        changed = self.db.execute(
            "UPDATE agent_jobs SET status = :to, leased_by = NULL, lease_until = NULL, next_run_at = :at, updated_at = :at,"
            " review_reason = CASE WHEN :to = 'review' THEN :reason ELSE review_reason END,"
            " outcome = CASE WHEN :to = 'review' THEN 'review' ELSE outcome END"
            " WHERE id = :id AND status = 'running' AND lease_fence = :fence AND lease_until < :cutoff",
            {"to": to, "at": at, "reason": reason, "id": job["id"], "fence": job["lease_fence"],
             "cutoff": utc(now - self.skew_margin_ms)},
        ).rowcount
        if changed == 0:
            return False
        self._event(job["id"], "transition", "running", to, job["attempts"], job["lease_fence"], worker, actor, reason, at)
        return True

    def claim(self, worker, now):
        """Sweeps expired leases, then takes the oldest ready job under a new epoch, counting the attempt."""
        at = utc(now)

        def work():
            self._sweep(now, "worker", worker)
            ready = self.db.execute(
                "SELECT id, status FROM agent_jobs WHERE status IN ('pending', 'retry')"
                " AND next_run_at <= ? AND attempts < max_attempts ORDER BY created_at, id LIMIT 1",
                (at,),
            ).fetchone()
            if ready is None:
                return None
            job = self.db.execute(
                "UPDATE agent_jobs SET status = 'running', leased_by = ?, lease_until = ?, attempts = attempts + 1,"
                " lease_fence = lease_fence + 1, updated_at = ? WHERE id = ? AND status IN ('pending', 'retry') RETURNING *",
                (worker, utc(now + self.lease_ms), at, ready["id"]),
            ).fetchone()
            self._event(job["id"], "transition", ready["status"], "running", job["attempts"], job["lease_fence"], worker,
                        "worker", "claimed by %s, lease until %s" % (worker, job["lease_until"]), at)
            return dict(job)

        return self._tx(work)

    def _under_lease(self, lease, now, actor, what, to, plan):
        """A holder's write: applied under the fence, or refused and recorded as refused."""
        at = utc(now)
        params = {"job_id": lease["job_id"], "holder": lease["holder"], "epoch": lease["epoch"]}

        def work():
            held = self.db.execute("SELECT * FROM agent_jobs WHERE " + FENCED, params).fetchone()
            if held is None:
                return self._refuse(lease, at, actor, what, to)
            sets, values, reason, delay_ms = plan(held)
            after = self.db.execute(
                "UPDATE agent_jobs SET %s, updated_at = :at WHERE %s RETURNING status" % (sets, FENCED),
                dict(values, at=at, **params),
            ).fetchone()["status"]
            if after != held["status"]:
                self._event(lease["job_id"], "transition", held["status"], after, held["attempts"], lease["epoch"],
                            lease["holder"], actor, reason, at, delay_ms)
            return after

        result = self._tx(work)
        if isinstance(result, LeaseLost):
            raise result
        return result

    def _refuse(self, lease, at, actor, what, to):
        current = self.db.execute("SELECT status, leased_by, lease_fence, attempts FROM agent_jobs WHERE id = ?",
                                  (lease["job_id"],)).fetchone()
        if current is None:
            return LeaseLost("no job %s" % lease["job_id"])
        held = ("held by %s under epoch %s" % (current["leased_by"], current["lease_fence"])
                if current["leased_by"] else "not leased")
        reason = "%s refused: lease of %s under epoch %s was lost (job is %s, %s)" % (
            what, lease["holder"], lease["epoch"], current["status"], held)
        self._event(lease["job_id"], "refused", current["status"], to, current["attempts"], lease["epoch"],
                    lease["holder"], actor, reason, at)
        return LeaseLost("lease lost (job is %s, %s)" % (current["status"], held))

    def heartbeat(self, lease, now):
        until = utc(now + self.lease_ms)
        self._under_lease(lease, now, "worker", "heartbeat", "running",
                          lambda held: ("lease_until = :until", {"until": until}, "lease renewed", None))
        return until

    def complete(self, lease, digest, now):
        if not isinstance(digest, str) or not DIGEST.match(digest):
            raise BadRequest("done needs the verified result's SHA-256 digest (64 lowercase hex)")
        return self._under_lease(lease, now, "worker", "complete", "done", lambda held: (
            "status = 'done', result_digest = :digest, leased_by = NULL, lease_until = NULL, last_error = NULL,"
            " review_reason = NULL, outcome = 'done'",
            {"digest": digest}, "done, verified result %s" % digest[:12], None))

    def retry(self, lease, error, now):
        def plan(held):
            exhausted = held["attempts"] >= held["max_attempts"]
            delay = retry_delay_ms(held["attempts"], self.retry_delay, self.rng)
            reason = ("retries exhausted (%s of %s): %s" % (held["attempts"], held["max_attempts"], error) if exhausted
                      else "retry in %s ms: %s" % (delay, error))
            return ("status = :to, next_run_at = :next, last_error = :error, leased_by = NULL, lease_until = NULL,"
                    " review_reason = CASE WHEN :to = 'review' THEN :reason ELSE review_reason END,"
                    " outcome = CASE WHEN :to = 'review' THEN 'review' ELSE outcome END",
                    {"to": "review" if exhausted else "retry", "next": utc(now + delay), "error": error, "reason": reason},
                    reason, None if exhausted else delay)

        return self._under_lease(lease, now, "worker", "retry", "retry", plan)

    def review(self, lease, reason, error, awaiting_approval, now):
        return self._under_lease(lease, now, "worker", "review", "review", lambda held: (
            "status = 'review', review_reason = :reason, last_error = COALESCE(:error, last_error),"
            " leased_by = NULL, lease_until = NULL, outcome = :outcome",
            {"reason": reason, "error": error, "outcome": "awaiting_approval" if awaiting_approval else "review"},
            reason, None))

    def begin_compensation(self, lease, reason, error, now):
        return self._under_lease(lease, now, "worker", "begin compensation", "compensating", lambda held: (
            "status = 'compensating', last_error = :error, leased_by = NULL, lease_until = NULL",
            {"error": error}, reason, None))

    # -- the coordinator's parts --------------------------------------------

    def claim_compensation(self, coordinator, now):
        """The oldest compensating job nobody holds (or this coordinator held, or whose holder's lease expired)."""
        def work():
            row = self.db.execute(
                "UPDATE agent_jobs SET leased_by = :c, lease_until = :until, lease_fence = lease_fence + 1, updated_at = :at"
                " WHERE id = (SELECT id FROM agent_jobs WHERE status = 'compensating'"
                " AND (leased_by IS NULL OR leased_by = :c OR lease_until < :cutoff) ORDER BY id LIMIT 1) RETURNING *",
                {"c": coordinator, "until": utc(now + self.lease_ms), "at": utc(now), "cutoff": utc(now - self.skew_margin_ms)},
            ).fetchone()
            return dict(row) if row else None

        return self._tx(work)

    def finish_compensation(self, lease, outcome, reason, now):
        if outcome not in ("compensated", "compensation_failed"):
            raise BadRequest("outcome must be compensated or compensation_failed")
        return self._under_lease(lease, now, "coordinator", "finish compensation", "review", lambda held: (
            "status = 'review', review_reason = :reason, leased_by = NULL, lease_until = NULL, outcome = :outcome",
            {"reason": reason, "outcome": outcome}, reason, None))

    def expired_leases(self, now):
        return [dict(row) for row in self._expired(now)]

    def release_expired(self, job_id, epoch, attempt, to, reason, by, now, checkpoint=None):
        """Takes an expired lease back; with a checkpoint (a reconciliation's answer), both commit or neither."""
        if to not in ("retry", "review"):
            raise BadRequest("an expired lease goes to retry or review")
        job = {"id": job_id, "lease_fence": epoch, "attempts": attempt}

        def work():
            if not self._release(job, (to, reason), now, "coordinator", by):
                return False
            if checkpoint is not None:
                self._insert_tx(job_id, attempt, epoch, by, checkpoint, now)
            return True

        return self._tx(work)

    def maintain(self, now):
        return self._tx(lambda: self._sweep(now, "coordinator", "maintenance"))

    def expire_lease(self, job_id):
        self._tx(lambda: self.db.execute(
            "UPDATE agent_jobs SET lease_until = ? WHERE id = ? AND status IN ('running', 'compensating') AND leased_by IS NOT NULL",
            (LONG_AGO, job_id)))

    def requeue_from_review(self, job_id, by, note, now, checkpoint=None):
        """The one way out of review: a person's recorded decision, with one more attempt allowed."""
        at = utc(now)

        def work():
            row = self.db.execute(
                "UPDATE agent_jobs SET status = 'pending', next_run_at = :at, updated_at = :at,"
                " max_attempts = MAX(max_attempts, attempts + 1), review_reason = NULL, outcome = NULL"
                " WHERE id = :id AND status = 'review' RETURNING attempts, lease_fence, idempotency_key",
                {"at": at, "id": job_id},
            ).fetchone()
            if row is None:
                return False
            # The person's decision is in the saga log too, so whoever runs the job next knows it was sent back on purpose.
            worker = "human:%s" % by
            if checkpoint is not None:
                self._insert_tx(job_id, row["attempts"], row["lease_fence"], worker, checkpoint, now)
            self._insert_tx(job_id, row["attempts"], row["lease_fence"], worker,
                            {"step_id": "(job)", "action": "requeue", "key": row["idempotency_key"], "status": "success",
                             "detail": note}, now)
            self._event(job_id, "transition", "review", "pending", row["attempts"], row["lease_fence"], None, "human",
                        "requeued by %s: %s" % (by, note), at)
            return True

        return self._tx(work)

    # -- the saga's checkpoints, in the queue's own transactions ----------------

    def _insert_tx(self, job_id, attempt, epoch, worker, entry, now):
        self.db.execute(
            "INSERT INTO agent_tx_log (job_id, step_id, action, idempotency_key, status, external_reference,"
            " compensation_status, attempt, epoch, worker, detail, error_kind, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (job_id, entry["step_id"], entry["action"], entry["key"], entry["status"], entry.get("external_reference"),
             entry.get("compensation_status"), attempt, epoch, worker, entry.get("detail"), entry.get("error_kind"), utc(now)),
        )

    def append_tx(self, lease, entry, now):
        """A checkpoint, only while `lease` still holds the job: the lease check and the insert in one transaction."""
        params = {"job_id": lease["job_id"], "holder": lease["holder"], "epoch": lease["epoch"]}

        def work():
            held = self.db.execute("SELECT attempts FROM agent_jobs WHERE " + FENCED, params).fetchone()
            if held is None:
                return False
            self._insert_tx(lease["job_id"], held["attempts"], lease["epoch"], lease["holder"], entry, now)
            return True

        return self._tx(work)

    def read_tx(self, job_id=None):
        if job_id is None:
            return [dict(r) for r in self.db.execute("SELECT * FROM agent_tx_log ORDER BY id")]
        return [dict(r) for r in self.db.execute("SELECT * FROM agent_tx_log WHERE job_id = ? ORDER BY id", (job_id,))]

    def record_incident(self, job_id, step_id, error, now):
        self._tx(lambda: self.db.execute("INSERT INTO agent_incidents (job_id, step_id, error, at) VALUES (?, ?, ?, ?)",
                                         (job_id, step_id, error, utc(now))))

    def incidents(self, job_id=None):
        if job_id is None:
            return [dict(r) for r in self.db.execute("SELECT * FROM agent_incidents ORDER BY id")]
        return [dict(r) for r in self.db.execute("SELECT * FROM agent_incidents WHERE job_id = ? ORDER BY id", (job_id,))]

    # -- reads ----------------------------------------------------------------

    def jobs(self):
        return [dict(row) for row in self.db.execute("SELECT * FROM agent_jobs ORDER BY id")]

    def events(self):
        return [dict(row) for row in self.db.execute("SELECT * FROM agent_job_events ORDER BY id")]

    def counts(self):
        counts = {s: 0 for s in ("pending", "running", "retry", "done", "review", "compensating")}
        for row in self.db.execute("SELECT status, COUNT(*) AS n FROM agent_jobs GROUP BY status"):
            counts[row["status"]] = row["n"]
        return counts

    def progress(self):
        # A history row is written by every change (and every refusal), a log row by every checkpoint; a renewal alone is not progress.
        row = self.db.execute("SELECT (SELECT COUNT(*) FROM agent_job_events), (SELECT COUNT(*) FROM agent_tx_log)").fetchone()
        return "%s:%s" % (row[0], row[1])


def default_release(job):
    """Where an expired lease's job goes when nothing else is known: retry, or review on its last attempt."""
    if job["attempts"] >= job["max_attempts"]:
        return ("review", "lease of %s expired at %s on its last attempt (%s of %s)" % (
            job["leased_by"], job["lease_until"], job["attempts"], job["max_attempts"]))
    return ("retry", "lease of %s expired at %s" % (job["leased_by"], job["lease_until"]))


def retry_delay_ms(attempt, policy, rng):
    """The delay before attempt `attempt + 1`: base doubling per attempt up to the cap, plus jitter."""
    exponential = min(policy["base_ms"] * 2 ** max(attempt - 1, 0), policy["cap_ms"])
    return int(exponential + rng.randint(0, int(policy["jitter_ms"])))
