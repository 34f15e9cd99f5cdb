#!/usr/bin/python3
"""Celery, drilled through queue-drill's process protocol 2 (docs/protocol.md, docs/celery-sidekiq.md).

Run by the drill, never by hand: `queue-drill run --queue "process:/usr/bin/python3 THIS_FILE"` (Debian's python3, which
python3-celery and python3-redis installed into). Celery's own worker (WorkController, the solo pool, kombu's Redis
transport) runs the tasks: `work` starts it in this process's main thread, and the one task, `qd.run`, hands each job to
the drill (a `deliver` event) and blocks until the drill settles it, then does what a Celery task does with that outcome:
returns (done), `self.retry(countdown=...)` (retry), or fails (review). Requests are read and answered on a second
thread, so heartbeats, snapshots and the settlement reach us while the task blocks.

Celery as its users run it: its defaults (acks early: a task's message is acknowledged just before the task runs; a
prefetch of 4; kombu's visibility timeout of 3600 s), or the options they set (`--queue-option acks_late=true`,
`visibility_timeout=S`, `reject_on_worker_lost=true`, `prefetch_multiplier=N`). Celery keeps no job table, so the child
writes down what it saw (record.py); it fences nothing and takes nothing back: redelivery is kombu's.
"""

import json
import os
import queue
import random
import sys
import threading
import time

sys.dont_write_bytecode = True  # many drill processes start this file at once: none writes bytecode beside it

# Our stdout is the protocol's: keep a handle on it, and send everything else written to fd 1 (a library's banner) to stderr.
WIRE = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)

import celery  # noqa: E402
import kombu  # noqa: E402
from celery import bootsteps  # noqa: E402
from celery.exceptions import Reject  # noqa: E402
from celery.worker import state as worker_state  # noqa: E402

from record import Record, now_ms, utc  # noqa: E402

OPTIONS = {
    "acks_late": {"describe": "task_acks_late: acknowledge a task's message after it ran, not just before (Celery's default: false)",
                  "default": False, "type": "boolean"},
    "visibility_timeout": {"describe": "kombu's Redis visibility_timeout in seconds: how long a delivered, unacknowledged message "
                                       "waits before a worker restores it to the queue (kombu's default: 3600)",
                           "default": 3600, "type": "number"},
    "reject_on_worker_lost": {"describe": "task_reject_on_worker_lost: requeue a task whose pool process died (prefork only: the "
                                          "solo pool runs tasks in the worker itself, so a dead pool process is a dead worker)",
                              "default": False, "type": "boolean"},
    "prefetch_multiplier": {"describe": "worker_prefetch_multiplier: messages a worker reserves ahead, per pool slot (Celery's default: 4)",
                            "default": 4, "type": "number"},
}
EVIDENCE = {
    "history": True,
    "refusals": "Celery refuses no write: a task that outlived its message's visibility timeout still completes, and nothing records it",
    "epoch": "Celery has no fencing token: the record counts deliveries, but Celery checks nothing against the count",
    "holder": True,
    "digest": True,
    "review": True,
    "retry-policy": True,
}
# The drill's queue (under the drill's key prefix) and its one task.
QUEUE, TASK = "qd", "qd.run"
# kombu's Redis transport restores unacknowledged messages once when a worker starts polling, then on every tenth call of a
# 10-s timer (kombu/transport/redis.py: restore_visible(interval=10), call_repeatedly(10, ...)): up to 100 s apart.
RESTORE_CADENCE_S = 100
# The longest the drill waits for kombu to bring a dead worker's task back: a scenario that would need longer is not judged.
MAX_WAIT_S = 300
# The shortest lease the drill may ask for: Celery keeps no lease of its own, so this only guards the drill's renewal pace.
MIN_LEASE_MS = 50


def reply(message):
    with WIRE_LOCK:
        WIRE.write(json.dumps(message) + "\n")


WIRE_LOCK = threading.Lock()


class Refused(Exception):
    """A request refused with a code (args: code, message): nothing changed, so the answer is `fail`."""


def option_values(given):
    values = {key: spec["default"] for key, spec in OPTIONS.items()}
    values.update({k: v for k, v in (given or {}).items() if k in OPTIONS})
    return values


class Child:
    record = app = settings = None
    held = None  # the delivery in hand: its job id, holder, epoch, and where its settlement goes
    work_request = None

    def __init__(self):
        self.work_asked = queue.Queue()

    # --- the queue's set-up: hello, provision, fit, open, teardown ---
    def op_hello(self, req):
        return {"name": "celery", "version": "%s (kombu %s, Redis transport)" % (celery.__version__, kombu.__version__),
                "protocol": 2, "locator_kind": "name", "needs": ["redis_url"], "options": OPTIONS,
                "description": "Celery's own worker (solo pool) on Redis, as its users run it; the child records what it saw",
                "capabilities": {"evidence": EVIDENCE, "takeover": "queue", "clock": "server", "saga_store": "beside-the-run",
                                 "fencing": "Celery has no fencing: a stale worker's task completes as any other"},
                "ops": sorted(n[3:] for n in dir(self) if n.startswith("op_")), "limits": {"min_lease_ms": MIN_LEASE_MS}}

    def op_provision(self, req):  # a key prefix of its own per run: Celery's keys (global_keyprefix) and the record's
        prefix = "qd-celery-%s-%d" % (req["run_id"], random.SystemRandom().randrange(1 << 30))
        return {"locator": prefix, "where": "Redis, keys %s:*" % prefix}

    def op_teardown(self, req):
        if not req["keep"]:
            Record(redis_url(req), req["store"]).drop(req["store"])

    def op_fit(self, req):
        d = req["demands"]
        o = option_values(d.get("queue_options"))
        if d["lease_ms"] < MIN_LEASE_MS:
            return {"ok": False, "reason": "the drill's lease of %d ms is below the %d ms this child keeps" % (d["lease_ms"], MIN_LEASE_MS)}
        if "heartbeat" in d["points"]:
            return {"ok": False, "reason": "Celery has no heartbeat: a message's visibility timeout runs from its delivery and is never "
                                           "renewed, so the heartbeat fault point stands for nothing Celery does"}
        mapping = {"acks_late": o["acks_late"], "visibility_timeout_s": o["visibility_timeout"],
                   "reject_on_worker_lost": o["reject_on_worker_lost"], "prefetch_multiplier": o["prefetch_multiplier"],
                   "pool": "solo (one task at a time, in the worker process)", "broker": "Redis (kombu), a key prefix per drill",
                   "max_retries": "max_attempts - 1 (self.retry(max_retries=...))",
                   "countdown": "the drill's retry delay for the attempt (base doubling to the cap, plus seeded jitter)",
                   "dedupe": "SET NX of the idempotency key before apply_async (Celery dedupes nothing; its users write this)",
                   "renewal": "none: Celery renews no message (heartbeats change nothing)"}
        if not d["holder_dies"]:
            return {"ok": True, "mapping": mapping}
        # A worker that dies holding a task: its message comes back once the visibility timeout has passed, when a worker starts
        # polling or on kombu's restore cadence. The drill waits for that, up to a bound; past it the scenario is not judged.
        back_s = o["visibility_timeout"] + RESTORE_CADENCE_S
        if back_s > MAX_WAIT_S:
            return {"ok": False, "reason": "a dead worker's task comes back only after kombu's visibility timeout (%ss) and its restore "
                                           "cadence (up to %d s more); the drill waits at most %d s: drill it with "
                                           "--queue-option visibility_timeout=S" % (fmt(o["visibility_timeout"]), RESTORE_CADENCE_S, MAX_WAIT_S)}
        wait_ms = int((back_s + 10) * 1000)
        return {"ok": True, "mapping": mapping,
                "at_least": {"no_progress_ms": wait_ms, "timeout_ms": d["timeout_ms"] + wait_ms,
                             "why": "kombu restores an unacknowledged message once its visibility timeout (%ss) has passed, when a "
                                    "worker starts polling or on every tenth 10-s tick (up to %d s)" % (fmt(o["visibility_timeout"]), RESTORE_CADENCE_S)}}

    def op_open(self, req):
        self.settings, self.options = req, option_values(req.get("queue_options"))
        self.rng = random.Random(req["seed"])
        self.record = Record(redis_url(req), req["store"])
        self.app = make_app(redis_url(req), req["store"], self.options, self)

    # --- the producer's side ---
    def op_enqueue(self, req):
        made, job_id = self.record.create(req["key"], req["action"], req["payload"], req["max_attempts"])
        if made:  # as its users write it: the task is sent once, by the producer whose SET NX won the key
            self.app.send_task(TASK, args=[job_id], queue=QUEUE)
        return {"outcome": "created" if made else "deduplicated", "job_id": job_id}

    # --- the worker's side: Celery's own worker in the main thread ---
    def op_work(self, req):
        self.work_request, self.processed, self.stopping = req, 0, False
        self.work_asked.put(req)
        return None  # answered when the worker stops

    def run_worker(self, req):
        worker_state.should_stop = None
        worker = self.app.WorkController(hostname="%s@queue-drill" % req["worker_id"], pool_cls="solo", concurrency=1,
                                         loglevel="WARNING", without_mingle=True, without_gossip=True, without_heartbeat=True,
                                         prefetch_multiplier=int(self.options["prefetch_multiplier"]), queues=[QUEUE])
        worker.start()
        return {"processed": self.processed}

    def tick(self):  # on the worker's event loop, every poll: stop when told, after max_jobs, or drained
        req = self.work_request
        if self.held is None and (self.stopping or (req["max_jobs"] and self.processed >= req["max_jobs"])
                                  or (req["exit_when_drained"] and not self.record.active())):
            worker_state.should_stop = 0

    def op_stop_work(self, req):
        self.stopping = True

    def run_task(self, task, job_id):
        """The body of qd.run: a delivery handed to the drill, then what Celery does with its settlement."""
        r, req = task.request, self.work_request
        if self.stopping or (req["max_jobs"] and self.processed >= req["max_jobs"]):
            # A task the solo pool starts after the loop was told to end (it runs each prefetched message at once): handed back
            # untouched, as Celery's warm shutdown hands back the messages it reserved (acks early: acknowledged, so sent again).
            if self.options["acks_late"]:
                raise Reject("the worker is stopping", requeue=True)
            task.apply_async(args=[job_id], queue=QUEUE)
            return None
        worker = req["worker_id"]
        attempt = r.retries + 1
        # Unacknowledged while the task runs, acks_late or not (the solo pool runs it inside the event loop that would send an
        # early ack): kombu restores the message once the visibility timeout has passed since this delivery.
        lease_until = utc(now_ms() + int(self.options["visibility_timeout"] * 1000))

        def delivered(job):
            steps = []
            if job["status"] == "running":  # delivered again while the record says another delivery holds it: kombu restored it
                steps.append(("retry", None, "coordinator", "delivered again: the message came back unacknowledged (kombu restored it)", None, {}))
            reason = "delivered again" if job["status"] in ("done", "review", "compensating") else "started by the worker"
            steps.append(("running", worker, "worker", reason, None,
                          {"holder": worker, "attempts": attempt, "epoch": job["epoch"] + 1, "lease_until": lease_until}))
            return steps
        job = self.record.change(job_id, delivered)
        settled = queue.Queue()
        self.held = {"job_id": job_id, "holder": worker, "epoch": job["epoch"], "settled": settled, "lease_until": lease_until}
        self.processed += 1
        reply({"event": "deliver", "delivery": {"job_id": job_id, "key": job["key"], "action": job["action"], "payload": job["payload"],
                                                "attempt": attempt, "max_attempts": job["max_attempts"], "epoch": job["epoch"],
                                                "holder": worker, "token": None, "lease_until": lease_until}})
        req = settled.get()
        self.held = None
        return self.settle(task, job, req)

    def settle(self, task, job, req):
        s, n, m = req["settlement"], job["attempts"], job["max_attempts"]
        holder = req["holder"]
        free = {"holder": None, "lease_until": None, "last_error": s.get("error") or job["last_error"]}
        if s["kind"] == "lease_lost":
            reply({"re": req["id"], "type": "ok", "body": {"status": None}})
            raise Abandoned("the drill's handler gave the job up")
        if s["kind"] == "retry" and n < m:
            r = self.settings["retry_delay"]
            delay = min(r["base_ms"] * 2 ** (n - 1), r["cap_ms"]) + self.rng.randint(0, r["jitter_ms"])
            self.record.change(job["id"], lambda _: [("retry", holder, "worker", "self.retry(countdown=%d ms)" % delay, delay,
                                                      dict(free, next_run_at=utc(now_ms() + delay)))])
            reply({"re": req["id"], "type": "ok", "body": {"status": "retry"}})
            raise task.retry(countdown=delay / 1000, max_retries=m - 1, exc=Failed(s.get("error") or "retry"))
        if s["kind"] in ("retry", "review"):
            why = s.get("reason") or "retries exhausted (%d of %d): %s" % (n, m, s.get("error"))
            outcome = "awaiting_approval" if s.get("awaiting_approval") else "review"
            self.record.change(job["id"], lambda _: [("review", holder, "worker", why, None, dict(free, review_reason=why, outcome=outcome))])
            reply({"re": req["id"], "type": "ok", "body": {"status": "review"}})
            raise Failed(why)  # the task fails: Celery marks it FAILURE and retries it no more
        to = "done" if s["kind"] == "done" else "compensating"
        changes = dict(free, result_digest=s.get("digest"), outcome="done") if to == "done" else free
        self.record.change(job["id"], lambda _: [(to, holder, "worker", s.get("reason", "returned"), None, changes)])
        reply({"re": req["id"], "type": "ok", "body": {"status": to}})
        return s.get("digest")

    def op_settle(self, req):
        held = self.held
        if held is None or held["job_id"] != str(req["job_id"]):
            raise Refused("bad_request", "job %s is not the delivery in hand" % req["job_id"])
        if req["settlement"]["kind"] == "done" and len(str(req["settlement"].get("digest"))) != 64:
            raise Refused("bad_request", "done needs a SHA-256 digest")
        held["settled"].put(req)
        return None  # answered by the task, once Celery has done what the settlement asks

    def op_heartbeat(self, req):
        held = self.held
        if held is None or (held["job_id"], held["holder"], held["epoch"]) != (str(req["job_id"]), req["holder"], req["epoch"]):
            raise Refused("lease_lost", "job %s is not the delivery in hand" % req["job_id"])
        return {"lease_until": held["lease_until"]}  # Celery renews nothing: the lease ends when it did (null: no lease at all)

    # --- a person ---
    def op_requeue_from_review(self, req):
        """What a person does with a task that failed for good: sends it again, its retry count carried on, one attempt to spare."""
        moved = []

        def requeued(job):
            moved[:] = [job["status"] == "review"]
            if not moved[0]:
                return []
            return [("pending", None, "human", "sent again by %s: %s" % (req["by"], req["note"]), None,
                     {"outcome": None, "review_reason": None, "max_attempts": max(job["max_attempts"], job["attempts"] + 1),
                      "next_run_at": utc(now_ms())})]
        job = self.record.change(req["job_id"], requeued)
        if moved[0]:
            self.app.send_task(TASK, args=[job["id"]], queue=QUEUE, retries=job["attempts"])
        return {"requeued": moved[0]}

    # --- what the drill reads ---
    def op_snapshot(self, req):
        return self.record.snapshot(req.get("history", True))

    def op_progress(self, req):
        return {"progress": self.record.progress()}

    # --- the wire ---
    def serve(self, line):
        rid = None
        try:
            req = json.loads(line)
            rid, op = req["id"], req["op"]
            if not hasattr(self, "op_" + op):
                raise Refused("unknown_op", "no op %r here" % op)
            if self.record is None and op not in ("hello", "provision", "open", "teardown", "fit"):
                raise Refused("not_open", "open first")
            body = getattr(self, "op_" + op)(req)
            if body is not None or op not in ("work", "settle"):
                reply({"re": rid, "type": "ok", "body": body or {}})
        except Exception as failure:  # fail: refused or a field missing, nothing changed; info: Redis or a bug may have
            definite = isinstance(failure, (Refused, ValueError, TypeError, KeyError))
            code, why = failure.args if isinstance(failure, Refused) else ("bad_request" if definite else "internal", repr(failure))
            reply({"re": rid, "type": "fail" if definite else "info", "code": code, "message": why})


class Failed(Exception):
    """A task's failure as Celery records it (the drill's error text, never the payload)."""


class Abandoned(Exception):
    """The drill gave the delivery up (lease_lost): the task ends, failed, as Celery ends a task that raised."""


def fmt(seconds):
    return ("%g" % seconds)


def redis_url(req):
    url = (req.get("servers") or {}).get("redis_url")
    if not url:
        raise Refused("bad_request", "this queue needs a Redis server: servers.redis_url")
    return url


def make_app(url, prefix, options, child):
    app = celery.Celery("queue-drill", broker=url)
    app.set_default()  # the app every thread falls back to: a task's retry (a signature) would otherwise find Celery's own default, on AMQP
    app.conf.update(
        broker_transport_options={"global_keyprefix": prefix + ":", "visibility_timeout": options["visibility_timeout"]},
        task_acks_late=options["acks_late"], task_reject_on_worker_lost=options["reject_on_worker_lost"],
        task_default_queue=QUEUE, task_ignore_result=True, worker_hijack_root_logger=False, worker_redirect_stdouts=False,
        broker_connection_retry_on_startup=True, enable_utc=True, worker_send_task_events=False)

    @app.task(bind=True, name=TASK)
    def run(task, job_id):
        return child.run_task(task, job_id)

    class Tick(bootsteps.StartStopStep):  # the worker's loop looks at our stop conditions every poll
        requires = {"celery.worker.consumer.tasks:Tasks"}

        def start(self, consumer):
            consumer.timer.call_repeatedly(max(child.work_request["poll_ms"], 10) / 1000, child.tick)
    app.steps["consumer"].add(Tick)
    return app


def read_requests(child):
    for line in iter(sys.stdin.buffer.readline, b""):
        child.serve(line)
    os._exit(0)  # stdin closed: the drill process is gone or done, and so are we (a blocked task included)


if __name__ == "__main__":
    child = Child()
    threading.Thread(target=read_requests, args=(child,), daemon=True).start()
    while True:
        request = child.work_asked.get()
        try:
            reply({"re": request["id"], "type": "ok", "body": child.run_worker(request)})
        except Exception as failure:
            reply({"re": request["id"], "type": "info", "code": "internal", "message": repr(failure)})
