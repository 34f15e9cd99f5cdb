#!/usr/bin/env python3
"""The queue sketch's SQLite queue (docs/design.md#origin), speaking queue-drill's
process protocol (docs/protocol.md).

Run by the drill, never by hand: `queue-drill run --queue "process:python3 THIS_FILE"`.
Standard library only (Python 3.11). JSON lines in on stdin, out on stdout;
logs on stderr only. The process exits as soon as its stdin closes.

One thread, one loop: wait for a line on stdin (or for the next poll, while a
`work` request is running and no delivery is outstanding), answer it, and, while
working, claim the next job with the queue's own loop and send it as a
`deliver` event. The job then stays outstanding until the drill settles it:
this process never renews a lease on its own, so a drill worker that is
stopped or killed loses its job when the lease runs out, as it should.
"""

import json
import os
import random
import select
import sys
import time

# Many drill processes start this file at once: none writes bytecode beside it.
sys.dont_write_bytecode = True

from store import BadRequest, LeaseLost, MaybeApplied, NotApplied, Store, utc

# Protocol 2 (teardown, fit); `--protocol 1` on the command line speaks the old one, for a drill or a check of protocol 1.
PROTOCOL = 1 if sys.argv[1:3] == ["--protocol", "1"] else 2
# The shortest lease and the largest attempt budget this queue keeps.
MIN_LEASE_MS = 50
MAX_ATTEMPTS = 1000
NAME = "python-sqlite-queue"
VERSION = "1.0.0"
# The ops protocol 2 added: a child speaking protocol 1 neither lists nor answers them.
PROTOCOL_2_OPS = ("teardown", "fit")
EVIDENCE = {"history": True, "refusals": True, "epoch": True, "holder": True, "digest": True, "review": True,
            "retry-policy": True}


def local_ms():
    return int(time.time() * 1000)


def as_claim(row):
    """A claimed row as the protocol's claim: what every write of its holder must show."""
    return {"job_id": str(row["id"]), "key": row["idempotency_key"], "action": row["action"], "payload": row["payload_json"],
            "attempt": row["attempts"], "max_attempts": row["max_attempts"], "epoch": row["lease_fence"],
            "holder": row["leased_by"] or "(nobody)", "token": None, "lease_until": row["lease_until"]}


def as_job(row):
    return {"id": str(row["id"]), "key": row["idempotency_key"], "action": row["action"], "payload": row["payload_json"],
            "status": row["status"], "outcome": row["outcome"], "attempts": row["attempts"],
            "max_attempts": row["max_attempts"], "holder": row["leased_by"], "lease_until": row["lease_until"],
            "epoch": row["lease_fence"], "next_run_at": row["next_run_at"], "last_error": row["last_error"],
            "review_reason": row["review_reason"], "result_digest": row["result_digest"],
            "created_at": row["created_at"], "updated_at": row["updated_at"]}


def as_transition(event):
    out = {"seq": event["id"], "job_id": str(event["job_id"]), "kind": event["kind"], "from": event["from_status"],
           "to": event["to_status"], "attempt": event["attempt"], "epoch": event["fence"], "worker": event["worker"],
           "actor": event["actor"], "reason": event["reason"], "at": event["at"]}
    if event["delay_ms"] is not None:
        out["retry_delay_ms"] = event["delay_ms"]
    return out


def field(request, name, kind):
    """A request's field, checked: a missing or mistyped one is a definite failure, nothing done."""
    value = request.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadRequest("field %r must be %s" % (name, getattr(kind, "__name__", kind)))
    return value


TX_FIELDS = ("step_id", "action", "key", "status")


def tx_entry(value):
    """A checkpoint to write, checked: step, action, key and status are text; the rest text or absent."""
    if not isinstance(value, dict):
        raise BadRequest("a checkpoint is an object")
    for name in TX_FIELDS:
        field(value, name, str)
    for name in ("external_reference", "compensation_status", "detail", "error_kind"):
        if value.get(name) is not None and not isinstance(value.get(name), str):
            raise BadRequest("checkpoint field %r must be text or null" % name)
    return value


def as_tx(row):
    return dict(row, job_id=str(row["job_id"]))


def lease_of(request):
    return {"job_id": int(field(request, "job_id", str)), "holder": field(request, "holder", str),
            "epoch": field(request, "epoch", int)}


class Child:
    def __init__(self):
        self.store = None
        self.offset_ms = 0
        self.work = None
        self.outstanding = None
        self.buffer = b""

    def now(self):
        """The drill's clock: our own, moved by the offset the last request's `now` showed."""
        return local_ms() + self.offset_ms

    def send(self, message):
        sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        sys.stdout.flush()

    def log(self, event, **fields):
        # Ids, epochs and codes only: never a payload, which may carry secrets.
        sys.stderr.write(json.dumps(dict({"at": utc(self.now()), "source": NAME, "event": event}, **fields)) + "\n")
        sys.stderr.flush()

    def reply(self, rid, body):
        self.send({"re": rid, "type": "ok", "body": body})

    def error(self, rid, kind, code, message):
        self.send({"re": rid, "type": kind, "code": code, "message": message})

    # -- the loop ---------------------------------------------------------------

    def run(self):
        while True:
            readable, _, _ = select.select([0], [], [], self.poll_timeout())
            if readable:
                chunk = os.read(0, 65536)
                if not chunk:
                    return  # stdin closed: the drill process is gone or done; so are we
                self.buffer += chunk
                while b"\n" in self.buffer:
                    line, self.buffer = self.buffer.split(b"\n", 1)
                    if line.strip():
                        self.handle(line)
            self.tick()

    def poll_timeout(self):
        if self.work is None or self.outstanding is not None:
            return None
        return max(0, self.work["next_poll"] - local_ms()) / 1000

    def tick(self):
        """The queue's own consumption loop, one step: finish, claim, or wait for the next poll."""
        work = self.work
        if work is None or self.outstanding is not None:
            return
        if work["stopping"] or (work["max_jobs"] and work["processed"] >= work["max_jobs"]):
            return self.finish_work()
        if local_ms() < work["next_poll"]:
            return
        try:
            row = self.store.claim(work["worker_id"], self.now())
        except (NotApplied, MaybeApplied) as failure:
            self.log("claim-failed", error=str(failure))
            row = None
        if row is not None:
            claim = as_claim(row)
            self.outstanding = (claim["job_id"], claim["epoch"], claim["holder"])
            self.log("claimed", job_id=claim["job_id"], attempt=claim["attempt"], epoch=claim["epoch"])
            self.send({"event": "deliver", "delivery": claim})
            return
        counts = self.store.counts()
        if work["exit_when_drained"] and counts["pending"] + counts["retry"] + counts["running"] == 0:
            return self.finish_work()
        work["next_poll"] = local_ms() + work["poll_ms"]

    def finish_work(self):
        work, self.work = self.work, None
        self.reply(work["rid"], {"processed": work["processed"]})

    # -- requests ---------------------------------------------------------------

    def handle(self, line):
        try:
            request = json.loads(line)
        except ValueError:
            return self.error(None, "fail", "bad_request", "not a JSON line")
        if not isinstance(request, dict) or not isinstance(request.get("id"), int) or not isinstance(request.get("op"), str):
            rid = request.get("id") if isinstance(request, dict) else None
            # An answer names a request by a whole number, or null for one it could not read.
            return self.error(rid if isinstance(rid, int) else None, "fail", "bad_request",
                              "a request is an object with an integer id and an op")
        rid, op = request["id"], request["op"]
        if isinstance(request.get("now"), int):
            self.offset_ms = request["now"] - local_ms()
        handler = getattr(self, "op_" + op, None)
        if handler is None or (PROTOCOL == 1 and op in PROTOCOL_2_OPS):
            return self.error(rid, "fail", "unknown_op", "no op %r in protocol %s" % (op, PROTOCOL))
        if self.store is None and op not in ("hello", "provision", "open", "teardown", "fit"):
            return self.error(rid, "fail", "not_open", "send open before %s" % op)
        try:
            body = handler(request)
        except BadRequest as failure:
            return self.error(rid, "fail", "bad_request", str(failure))
        except LeaseLost as failure:
            return self.error(rid, "fail", "lease_lost", str(failure))
        except NotApplied as failure:
            return self.error(rid, "fail", "store_error", str(failure))
        except MaybeApplied as failure:
            return self.error(rid, "info", "store_error", str(failure))
        except Exception as failure:  # a bug here: the drill must not guess that nothing happened
            self.log("op-crashed", op=op, error=type(failure).__name__)
            return self.error(rid, "info", "internal", "%s: %s" % (type(failure).__name__, failure))
        if body is not None:
            self.reply(rid, body)

    def op_hello(self, request):
        return {"name": NAME, "version": VERSION, "protocol": PROTOCOL,
                "description": "the queue sketch's SQLite queue in Python (standard library), built right: leases taken back, "
                               "writes fenced by epoch, refusals recorded, review left only by a person",
                "capabilities": {"evidence": EVIDENCE, "fencing": True, "takeover": "coordinator", "clock": "caller",
                                 "saga_store": "in-queue"},
                "ops": sorted(name[3:] for name in dir(self) if name.startswith("op_") and (PROTOCOL == 2 or name[3:] not in PROTOCOL_2_OPS)),
                "locator_kind": "file",
                "limits": {"min_lease_ms": MIN_LEASE_MS, "max_attempts": MAX_ATTEMPTS}}

    def op_provision(self, request):
        path = os.path.join(field(request, "run_dir", str), "queue.db")
        Store(path, 1000, 0, {"base_ms": 0, "cap_ms": 0, "jitter_ms": 0}, random.Random(0), create=True).close()
        return {"locator": path, "where": path}

    def op_teardown(self, request):
        """Removes the queue `store` names (its file and SQLite's companions), unless told to keep it."""
        path = field(request, "store", str)
        if not request.get("keep"):
            for suffix in ("", "-wal", "-shm", "-journal"):
                if os.path.exists(path + suffix):
                    os.remove(path + suffix)
        return {}

    def op_fit(self, request):
        """Whether this queue can run the drill the demands describe, and how it maps them onto its own settings."""
        demands = field(request, "demands", dict)
        lease_ms = field(demands, "lease_ms", int)
        attempts = max(field(demands, "max_attempts", list) or [0])
        if lease_ms < MIN_LEASE_MS:
            return {"ok": False, "reason": "%s keeps leases of %d ms or more; the drill asks for %d ms" % (NAME, MIN_LEASE_MS, lease_ms)}
        if attempts > MAX_ATTEMPTS:
            return {"ok": False, "reason": "%s allows at most %d attempts; the drill asks for %d" % (NAME, MAX_ATTEMPTS, attempts)}
        return {"ok": True, "mapping": {"lease_ms": lease_ms, "store": "SQLite, WAL, one file per drill"}}

    def op_open(self, request):
        if self.store is not None:
            raise BadRequest("already open")
        policy = field(request, "retry_delay", dict)
        for name in ("base_ms", "cap_ms", "jitter_ms"):
            field(policy, name, int)
        self.store = Store(field(request, "store", str), field(request, "lease_ms", int),
                           field(request, "skew_margin_ms", int), policy, random.Random(request.get("seed", 0)))
        return {}

    def op_enqueue(self, request):
        created, job_id = self.store.enqueue(field(request, "key", str), field(request, "action", str),
                                             field(request, "payload", str), field(request, "max_attempts", int), self.now())
        return {"outcome": "created" if created else "deduplicated", "job_id": str(job_id)}

    def op_work(self, request):
        if self.work is not None:
            raise BadRequest("already working")
        self.work = {"rid": request["id"], "worker_id": field(request, "worker_id", str),
                     "poll_ms": field(request, "poll_ms", int), "max_jobs": request.get("max_jobs") or 0,
                     "exit_when_drained": bool(request.get("exit_when_drained")), "processed": 0,
                     "next_poll": 0, "stopping": False}
        return None  # answered when the loop ends

    def op_stop_work(self, request):
        if self.work is not None:
            self.work["stopping"] = True
        return {}

    def op_settle(self, request):
        lease = lease_of(request)
        settlement = field(request, "settlement", dict)
        if self.outstanding == (str(lease["job_id"]), lease["epoch"], lease["holder"]):
            # Settled one way or another: the loop goes on to the next job at once.
            self.outstanding = None
            self.work["processed"] += 1
            self.work["next_poll"] = 0
        kind, now = settlement.get("kind"), self.now()
        if kind == "lease_lost":
            return {"status": None}
        if kind == "done":
            status = self.store.complete(lease, settlement.get("digest"), now)
        elif kind == "retry":
            status = self.store.retry(lease, field(settlement, "error", str), now)
        elif kind == "review":
            error = settlement.get("error")
            status = self.store.review(lease, field(settlement, "reason", str), error if isinstance(error, str) else None,
                                       bool(settlement.get("awaiting_approval")), now)
        elif kind == "compensate":
            status = self.store.begin_compensation(lease, field(settlement, "reason", str), field(settlement, "error", str), now)
        else:
            raise BadRequest("unknown settlement kind %r" % (kind,))
        return {"status": status}

    def op_heartbeat(self, request):
        return {"lease_until": self.store.heartbeat(lease_of(request), self.now())}

    def op_claim(self, request):
        row = self.store.claim(field(request, "worker_id", str), self.now())
        return {"claim": as_claim(row) if row else None}

    def op_snapshot(self, request):
        history = request.get("history", True) is not False
        return {"jobs": [as_job(row) for row in self.store.jobs()],
                "history": [as_transition(e) for e in self.store.events()] if history else []}

    def op_progress(self, request):
        return {"progress": self.store.progress()}

    def op_expire_lease(self, request):
        self.store.expire_lease(int(field(request, "job_id", str)))
        return {}

    def op_expired_leases(self, request):
        return {"claims": [as_claim(row) for row in self.store.expired_leases(self.now())]}

    def op_release_expired(self, request):
        checkpoint = request.get("checkpoint")
        released = self.store.release_expired(int(field(request, "job_id", str)), field(request, "epoch", int),
                                              field(request, "attempt", int), field(request, "to", str),
                                              field(request, "reason", str), field(request, "by", str), self.now(),
                                              None if checkpoint is None else tx_entry(checkpoint))
        return {"released": released}

    def op_maintain(self, request):
        return {"moved": self.store.maintain(self.now())}

    def op_claim_compensation(self, request):
        row = self.store.claim_compensation(field(request, "coordinator_id", str), self.now())
        return {"claim": as_claim(row) if row else None}

    def op_finish_compensation(self, request):
        status = self.store.finish_compensation(lease_of(request), field(request, "outcome", str),
                                                field(request, "reason", str), self.now())
        return {"status": status}

    def op_requeue_from_review(self, request):
        checkpoint = request.get("checkpoint")
        requeued = self.store.requeue_from_review(int(field(request, "job_id", str)), field(request, "by", str),
                                                  field(request, "note", str), self.now(),
                                                  None if checkpoint is None else tx_entry(checkpoint))
        return {"requeued": requeued}

    def op_append_tx(self, request):
        return {"appended": self.store.append_tx(lease_of(request), tx_entry(request.get("entry")), self.now())}

    def op_read_tx(self, request):
        job_id = request.get("job_id")
        return {"rows": [as_tx(r) for r in self.store.read_tx(None if job_id is None else int(field(request, "job_id", str)))]}

    def op_record_incident(self, request):
        self.store.record_incident(int(field(request, "job_id", str)), field(request, "step_id", str),
                                   field(request, "error", str), self.now())
        return {}

    def op_incidents(self, request):
        job_id = request.get("job_id")
        rows = self.store.incidents(None if job_id is None else int(field(request, "job_id", str)))
        return {"incidents": [as_tx(r) for r in rows]}


if __name__ == "__main__":
    try:
        Child().run()
    except KeyboardInterrupt:
        pass
