"""What the child saw Celery do, kept in Redis beside Celery's own keys: the drill's view of each job.

Celery keeps no job table: a task is a message in a list (and, while a worker holds it unacknowledged, in kombu's
`unacked` hash). So the child writes down, in one Redis transaction each, what happened as it happened: the
producer's enqueue, each time Celery's worker started the task (a delivery), and how the task ended. Nothing here
decides anything for Celery: a write is never refused, a job is never taken back; the record only says what the
library did, in the judge's six states. Keys (P is the drill's prefix): P:rec:next (job ids), P:rec:key:<key> (the
job of an idempotency key), P:rec:job:<id> (a hash, each value JSON), P:rec:history (a list of JSON entries).
"""

import json
import time

import redis

JOB_FIELDS = ("id", "key", "action", "payload", "status", "outcome", "attempts", "max_attempts", "holder", "lease_until",
              "epoch", "next_run_at", "last_error", "review_reason", "result_digest", "created_at", "updated_at")


def utc(ms):
    """Fixed-width UTC text, so that comparing the texts compares the times."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def now_ms():
    return int(time.time() * 1000)


class Record:
    def __init__(self, redis_url, prefix):
        self.r = redis.Redis.from_url(redis_url)
        self.p = prefix + ":rec:"

    def job(self, job_id, client=None):
        raw = (client or self.r).hgetall(self.p + "job:" + str(job_id))
        return {k.decode(): json.loads(v) for k, v in raw.items()} or None

    # One script, so that a key, its job and the job's first history entry exist together or not at all.
    CREATE = """
    local id = redis.call('GET', KEYS[1])
    if id then return {0, id} end
    id = tostring(redis.call('INCR', KEYS[2]))
    redis.call('SET', KEYS[1], id)
    local job, entry = cjson.decode(ARGV[1]), cjson.decode(ARGV[2])
    job['id'], entry['job_id'] = id, id
    for k, v in pairs(job) do redis.call('HSET', KEYS[3] .. id, k, cjson.encode(v)) end
    redis.call('RPUSH', KEYS[4], cjson.encode(entry))
    return {1, id}
    """

    def create(self, key, action, payload, max_attempts):
        """The job of `key`: (True, id) when this call made it, (False, id) when one was there."""
        at = utc(now_ms())
        job = dict.fromkeys(JOB_FIELDS)
        job.update(key=key, action=action, payload=payload, status="pending", attempts=0, epoch=0,
                   max_attempts=max_attempts, created_at=at, updated_at=at, next_run_at=at)
        entry = self.entry(job, None, "pending", None, "producer", "enqueued", at)
        made, job_id = self.r.eval(self.CREATE, 4, self.p + "key:" + key, self.p + "next", self.p + "job:", self.p + "history",
                                   json.dumps(job), json.dumps(entry))
        return made == 1, job_id.decode()

    @staticmethod
    def entry(job, frm, to, worker, actor, reason, at, delay=None):
        return {"job_id": job["id"], "kind": "transition", "from": frm, "to": to, "attempt": job["attempts"],
                "epoch": job["epoch"], "worker": worker, "actor": actor, "reason": reason, "at": at, "retry_delay_ms": delay}

    def change(self, job_id, steps):
        """Applies `steps(job)` to the job in one optimistic transaction (WATCH, retried on a race).

        `steps` returns a list of (to, worker, actor, reason, delay, changes): each moves the job to `to` (a history entry
        when the state changes) and sets `changes`. Returns the job as it ends.
        """
        key = self.p + "job:" + str(job_id)
        with self.r.pipeline() as tx:
            while True:
                try:
                    tx.watch(key)
                    job = self.job(job_id, tx)
                    if job is None:
                        raise KeyError("no job %s in the record" % job_id)
                    entries, at = [], utc(now_ms())
                    for to, worker, actor, reason, delay, changes in steps(job):
                        before = job["status"]
                        job = dict(job, status=to, updated_at=at, **changes)
                        if to != before:
                            entries.append(self.entry(job, before, to, worker, actor, reason, at, delay))
                    tx.multi()
                    tx.hset(key, mapping={k: json.dumps(v) for k, v in job.items()})
                    for entry in entries:
                        tx.rpush(self.p + "history", json.dumps(entry))
                    tx.execute()
                    return job
                except redis.WatchError:
                    continue

    def snapshot(self, with_history):
        """Every job and the history, read in one MULTI so that they agree."""
        count = int(self.r.get(self.p + "next") or 0)
        with self.r.pipeline() as tx:
            for n in range(1, count + 1):
                tx.hgetall(self.p + "job:%d" % n)
            tx.lrange(self.p + "history", 0, -1)
            *jobs, history = tx.execute()
        jobs = [{k.decode(): json.loads(v) for k, v in raw.items()} for raw in jobs if raw]
        entries = [dict(json.loads(e), seq=n) for n, e in enumerate(history, 1)] if with_history else []
        return {"jobs": jobs, "history": entries}

    def progress(self):
        return str(self.r.llen(self.p + "history"))

    def active(self):
        """Whether any job is pending, retrying or running."""
        snap = self.snapshot(False)
        return any(job["status"] in ("pending", "retry", "running") for job in snap["jobs"])

    def drop(self, prefix):
        """Deletes every key under `prefix` (Celery's and the record's)."""
        for key in self.r.scan_iter(match=prefix + ":*", count=500):
            self.r.delete(key)
