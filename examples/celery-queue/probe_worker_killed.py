#!/usr/bin/python3
"""A probe of Celery alone (no queue-drill code): what becomes of a task whose worker is SIGKILLed while it runs.

    /usr/bin/python3 probe_worker_killed.py REDIS_URL [--acks-late] [--visibility-timeout S]

Sends one task to a fresh key prefix, starts a worker (`celery worker --pool solo`, Celery's own CLI) that takes it,
SIGKILLs that worker once the task has started, waits 1.5 s, starts a second worker, and waits up to 8 s for the task to
start again. Prints one JSON line: each start of the task (its request.retries and whether the message came redelivered),
what is left in the queue and in kombu's `unacked` hash. What it shows of Celery 5.2.6 with the solo pool:
- the message of a running task is unacknowledged, acks_late or not: the early ack (Request.on_accepted -> acknowledge)
  is a promise run by Consumer.call_soon on the event loop, which the solo pool blocks while the task runs;
- so a SIGKILLed worker's task is neither run again nor lost: it waits in `unacked` until its visibility timeout (kombu's
  default 3600 s) has passed and a worker restores it: one starting to poll (on_poll_init -> restore_visible) or a running
  one on every tenth 10-s tick (kombu/transport/redis.py: restore_visible(interval=10), call_repeatedly(10, ...));
- restored, it runs again with the same request.retries: a redelivery is not counted as an attempt.
Exit 0 when the task started once or twice; every key it made is deleted and every worker it started is stopped.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid

import redis

WORKER = """
import sys, time, celery
url, prefix, acks_late, marks, timeout = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4], float(sys.argv[6])
app = celery.Celery("probe", broker=url)
app.conf.update(broker_transport_options={"global_keyprefix": prefix + ":", "visibility_timeout": timeout},
                task_acks_late=acks_late, task_default_queue="probe", worker_hijack_root_logger=False)

@app.task(name="probe.slow", bind=True)
def slow(task):
    with open(marks, "a") as f:
        f.write("%d %s\\n" % (task.request.retries, bool(task.request.delivery_info.get("redelivered"))))
    time.sleep(60)

if __name__ == "__main__":
    if sys.argv[5] == "send":
        slow.delay()
    else:
        app.worker_main(["worker", "--pool", "solo", "--without-mingle", "--without-gossip", "--without-heartbeat",
                         "-Q", "probe", "--loglevel", "WARNING"])
"""


def main():
    url, acks_late = sys.argv[1], "--acks-late" in sys.argv[2:]
    timeout = float(sys.argv[sys.argv.index("--visibility-timeout") + 1]) if "--visibility-timeout" in sys.argv else 3600
    prefix = "probe-celery-" + uuid.uuid4().hex
    r = redis.Redis.from_url(url)
    workers = []
    with tempfile.TemporaryDirectory() as tmp:
        script, marks = os.path.join(tmp, "probe_app.py"), os.path.join(tmp, "marks")
        with open(script, "w") as f:
            f.write(WORKER)
        open(marks, "w").close()
        run = lambda mode: [sys.executable, script, url, prefix, "1" if acks_late else "0", marks, mode, str(timeout)]  # noqa: E731
        starts = lambda: [line.split() for line in open(marks).read().splitlines()]  # noqa: E731
        started = lambda: len(starts())  # noqa: E731
        try:
            subprocess.run(run("send"), check=True, stdout=subprocess.DEVNULL)
            workers.append(subprocess.Popen(run("work"), stdout=subprocess.DEVNULL))
            wait_for(lambda: started() >= 1, 30)
            workers[0].send_signal(signal.SIGKILL)
            workers[0].wait()
            time.sleep(1.5)  # past a visibility timeout of 1 s: the next worker to start polling restores the message
            workers.append(subprocess.Popen(run("work"), stdout=subprocess.DEVNULL))
            wait_for(lambda: started() >= 2, 8)
            result = {"acks_late": acks_late, "visibility_timeout": timeout, "in_queue": r.llen(prefix + ":probe"),
                      "unacked": r.hlen(prefix + ":unacked"),
                      "starts": [{"retries": int(n), "redelivered": flag == "True"} for n, flag in starts()]}
        finally:
            for worker in workers:
                if worker.poll() is None:
                    worker.kill()
                    worker.wait()
            for key in r.scan_iter(match=prefix + ":*"):
                r.delete(key)
    print(json.dumps(result))
    return 0 if len(result["starts"]) in (1, 2) else 1


def wait_for(check, seconds):
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
