#!/usr/bin/env python3
"""The smallest queue queue-drill can drill (process protocol 2, docs/protocol.md): one SQLite file, standard library only. It writes
protocol messages only on stdout, hands the drill one job at a time, and never renews a lease itself (the drill sends `heartbeat`).
States: pending -> running -> done | retry | review | compensating; retry -> running."""
import json, os, pathlib, random, re, select, sqlite3, sys, time

LIMITS = {"min_lease_ms": 50, "max_attempts": 1000}  # the shortest lease this queue keeps, the largest attempt budget
SCHEMA = """CREATE TABLE jobs (id INTEGER PRIMARY KEY, key UNIQUE, action, payload, max_attempts, attempts DEFAULT 0, epoch DEFAULT 0,
  status, outcome, holder, lease_until, next_run_at, last_error, review_reason, result_digest, created_at, updated_at);
CREATE TABLE history (seq INTEGER PRIMARY KEY, job_id, kind, "from", "to", attempt, epoch, worker, actor, reason, at, retry_delay_ms);"""
EXPIRED = "SELECT * FROM jobs WHERE status = 'running' AND lease_until < ?"
READY = "SELECT * FROM jobs WHERE status IN ('pending', 'retry') AND next_run_at <= ? ORDER BY id"
ACTIVE = "SELECT 1 FROM jobs WHERE status IN ('pending', 'retry', 'running')"
SETTLED = {"done": "done", "retry": "retry", "review": "review", "compensate": "compensating"}  # the state each settlement asks for
FREE = {"holder": None, "lease_until": None}  # the lease released, as a settlement or a takeover leaves the job

def utc(ms):  # fixed-width UTC text, so that comparing the texts compares the times
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)

class Refused(Exception):
    """A request refused with a code (args: code, message): certainly nothing changed, so the answer is `fail`."""

class Child:
    db, held, offset_ms = None, None, 0  # the store; the delivery in hand, until it is settled; our clock's offset from the drill's
    def now(self):  # clock "caller": our clock, moved by the offset the last request's `now` showed
        return int(time.time() * 1000) + self.offset_ms

    def tx(self):  # `with self.tx():` is an op's one write transaction (each change writes its history entry in it), or its rollback
        self.db.execute("BEGIN IMMEDIATE")
        return self.db
    def record(self, kind, job, frm, to, worker, reason, at, delay=None, actor="worker"):
        self.db.execute("INSERT INTO history VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (job["id"], kind, frm, to, job["attempts"], job["epoch"], worker, actor, reason, at, delay))
    def move(self, job, to, reason, at, worker, delay=None, actor="worker", **changes):
        after = dict(job, status=to, updated_at=at, **changes)
        self.db.execute("UPDATE jobs SET %s WHERE id = :id" % ", ".join("%s = :%s" % (c, c) for c in after), after)
        if to != job["status"]: self.record("transition", after, job["status"], to, worker, reason, at, delay, actor)
        return after
    def fenced(self, req, to, at):  # the job, if the holder still holds it under that epoch; else lease_lost, recorded
        job = self.db.execute("SELECT * FROM jobs WHERE id = ?", (int(req["job_id"]),)).fetchone()
        if job and (job["status"], job["holder"], job["epoch"]) == ("running", req["holder"], req["epoch"]): return job
        if job:  # committed at once, so the exception below has nothing to roll back
            self.record("refused", dict(job, epoch=req["epoch"]), job["status"], to, req["holder"], "lease lost", at)
            self.db.commit()
        raise Refused("lease_lost", "job %s is not held by %s under epoch %s" % (req["job_id"], req["holder"], req["epoch"]))
    def claim(self, worker):  # takeover "queue": first take back every lease that ended over skew_margin_ms ago
        now, s = self.now(), self.settings
        with self.tx():
            for job in self.db.execute(EXPIRED, (utc(now - s["skew_margin_ms"]),)).fetchall():
                last = job["attempts"] >= job["max_attempts"]  # no attempt left: to review, saying why
                why = "lease of %(holder)s ran out" % job + (" on its last attempt (%(attempts)d of %(max_attempts)d)" % job if last else "")
                self.move(job, "review" if last else "retry", why, utc(now), worker, next_run_at=utc(now), **FREE,
                          **({"outcome": "review", "review_reason": why} if last else {}))
            job = self.db.execute(READY, (utc(now),)).fetchone()  # then the oldest ready job, under a new epoch (the fencing token)
            return job and self.move(job, "running", "claimed", utc(now), worker, holder=worker, attempts=job["attempts"] + 1,
                                     epoch=job["epoch"] + 1, lease_until=utc(now + s["lease_ms"]))

    def serve(self, timeout):  # answers the next request (a JSON line), if one comes within `timeout` s (None: waits for one)
        if not select.select([0], [], [], timeout)[0]: return
        line, rid = sys.stdin.buffer.raw.readline(), None  # unbuffered: no line waits in a buffer that select() cannot see
        if not line: sys.exit(0)  # stdin closed: the drill process is gone or done, and so are we
        try:
            req = json.loads(line)
            rid, op = req["id"], req["op"]
            self.offset_ms = req.get("now", self.now()) - int(time.time() * 1000)
            if not hasattr(self, "op_%s" % op): raise Refused("unknown_op", "no op %r here" % op)
            if self.db is None and op not in ("hello", "provision", "open", "teardown", "fit"): raise Refused("not_open", "open first")
            print(json.dumps({"re": rid, "type": "ok", "body": getattr(self, "op_%s" % op)(req) or {}}), flush=True)  # None: {}
        except Exception as failure:  # fail: a refusal, or a field missing or wrong, changed nothing; info: the store or a bug may have
            definite = isinstance(failure, (Refused, ValueError, TypeError, KeyError, sqlite3.ProgrammingError))
            code, why = failure.args if isinstance(failure, Refused) else ("bad_request" if definite else "internal", repr(failure))
            print(json.dumps({"re": rid, "type": "fail" if definite else "info", "code": code, "message": why}), flush=True)

    def op_hello(self, req):
        evidence = dict.fromkeys(["history", "refusals", "epoch", "holder", "digest", "review", "retry-policy"], True)
        return {"name": "minimal-sqlite-queue", "version": "1.0.0", "protocol": 2, "locator_kind": "file",
                "description": "the smallest queue queue-drill drills: SQLite, fenced writes, leases taken back at each claim",
                "capabilities": dict(evidence=evidence, fencing=True, takeover="queue", clock="caller", saga_store="beside-the-run"),
                "ops": [n[3:] for n in dir(self) if n.startswith("op_")], "limits": LIMITS}
    def op_provision(self, req):  # a queue is one SQLite file in the run directory, schema and all
        path = os.path.join(req["run_dir"], "queue.db")
        sqlite3.connect(path).executescript(SCHEMA).connection.close()
        return {"locator": path, "where": path}
    def op_teardown(self, req):  # the queue is gone, unless told to keep it
        if not req["keep"] and os.path.exists(req["store"]): os.remove(req["store"])
    def op_fit(self, req):  # asked before a drill: refuse, with the reason, what this queue cannot keep
        lease_ms, attempts = req["demands"]["lease_ms"], max(req["demands"]["max_attempts"], default=0)
        if lease_ms < LIMITS["min_lease_ms"] or attempts > LIMITS["max_attempts"]:
            return {"ok": False, "reason": "it keeps leases of %(min_lease_ms)d ms or more, %(max_attempts)d attempts or fewer" % LIMITS}
        return {"ok": True, "mapping": {"lease_ms": lease_ms, "store": "one SQLite file", "takeover": "at each claim"}}
    def op_open(self, req):  # keeps lease_ms, skew_margin_ms and retry_delay as `settings`; mode=rw: only provision makes a queue
        self.db = sqlite3.connect(pathlib.Path(req["store"]).absolute().as_uri() + "?mode=rw", uri=True, timeout=10, isolation_level=None)
        self.db.row_factory = sqlite3.Row  # isolation_level None: no implicit transactions, tx() begins each one
        self.settings, self.rng = req, random.Random(req["seed"])  # the retry jitter comes from the drill's seed
    def op_enqueue(self, req):  # one job per key: the UNIQUE key decides, inside one write transaction
        at = utc(self.now())
        with self.tx():
            job = self.db.execute("INSERT INTO jobs (key, action, payload, max_attempts, created_at) VALUES (:key, :action, :payload, "
                                  ":max_attempts, :at) ON CONFLICT DO NOTHING RETURNING *", dict(req, at=at)).fetchone()
            if job: self.move(job, "pending", "enqueued", at, None, actor="producer", next_run_at=at)  # from no state: created
            old = self.db.execute("SELECT id FROM jobs WHERE key = ?", (req["key"],)).fetchone()
        return {"outcome": "created" if job else "deduplicated", "job_id": str(old["id"])}
    def op_work(self, req):  # its own worker loop, answered when it ends: after stop_work, after max_jobs, or drained
        self.stop, processed = False, 0
        while not self.stop and not (req["max_jobs"] and processed >= req["max_jobs"]):
            job = self.claim(req["worker_id"])
            if job:
                self.held, processed = True, processed + 1
                print(json.dumps({"event": "deliver", "delivery": {"job_id": str(job["id"]), "attempt": job["attempts"], "token": None, **{
                    k: job[k] for k in ("key", "action", "payload", "max_attempts", "epoch", "holder", "lease_until")}}}), flush=True)
                while self.held: self.serve(None)  # one job at a time: serve the drill (heartbeats, its settle) until it is settled
            elif req["exit_when_drained"] and not self.db.execute(ACTIVE).fetchone(): break
            else: self.serve(req["poll_ms"] / 1000)
        return {"processed": processed}
    def op_stop_work(self, req):  # the loop ends once the delivery in hand, if any, is settled
        self.stop = True
    def op_settle(self, req):
        s, now, r, delay = req["settlement"], self.now(), self.settings["retry_delay"], None
        self.held = None  # settled, either way: the worker loop goes on
        if s["kind"] == "lease_lost": return {"status": None}  # the holder found it lost the job: nothing to write
        if s["kind"] == "done" and not re.fullmatch("[0-9a-f]{64}", str(s.get("digest"))): raise ValueError("done needs a SHA-256 digest")
        with self.tx():
            job = self.fenced(req, SETTLED[s["kind"]], utc(now))
            n, changes = job["attempts"], dict(FREE, last_error=s.get("error") or job["last_error"])
            if s["kind"] == "retry" and n < job["max_attempts"]:  # base doubling per attempt up to the cap, plus seeded jitter
                delay = min(r["base_ms"] * 2 ** (n - 1), r["cap_ms"]) + self.rng.randint(0, r["jitter_ms"])
                to, why, changes["next_run_at"] = "retry", "retry in %d ms" % delay, utc(now + delay)
            elif s["kind"] in ("retry", "review"):  # a retry with no attempt left goes to review too
                to, why = "review", s.get("reason") or "retries exhausted (%d of %d): %s" % (n, job["max_attempts"], s["error"])
                changes.update(review_reason=why, outcome="awaiting_approval" if s.get("awaiting_approval") else "review")
            else:  # done, with its digest; or compensating, where no compensator takes it (this queue offers no compensation ops)
                to, why = SETTLED[s["kind"]], s.get("reason", "done")
                changes.update(result_digest=s.get("digest"), outcome="done" if to == "done" else None)
            return {"status": self.move(job, to, why, utc(now), req["holder"], delay, **changes)["status"]}
    def op_heartbeat(self, req):  # the drill renews the holder's lease; this queue never does on its own
        at, until = utc(self.now()), utc(self.now() + self.settings["lease_ms"])
        with self.tx(): self.move(self.fenced(req, "running", at), "running", "renewed", at, None, lease_until=until)
        return {"lease_until": until}
    def op_snapshot(self, req):
        with self.tx():  # one transaction, so that the jobs and their history agree
            jobs = [dict(job, id=str(job["id"])) for job in self.db.execute("SELECT * FROM jobs ORDER BY id")]
            history = [dict(e, job_id=str(e["job_id"])) for e in self.db.execute("SELECT * FROM history ORDER BY seq")]
        return {"jobs": jobs, "history": history if req.get("history", True) else []}
    def op_progress(self, req):  # changes whenever a history entry is written
        return {"progress": str(self.db.execute("SELECT COUNT(*) FROM history").fetchone()[0])}


if __name__ == "__main__":
    child = Child()
    while True: child.serve(None)
