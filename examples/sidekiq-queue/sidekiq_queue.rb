#!/usr/bin/ruby
# frozen_string_literal: true

# Sidekiq, drilled through queue-drill's process protocol 2 (docs/protocol.md). The twin of examples/celery-queue/.
#
# Run by the drill, never by hand: `queue-drill run --queue "process:/usr/bin/ruby THIS_FILE"` (Debian's ruby, with the
# packages ruby-sidekiq (6.4.1) and ruby-redis-namespace). Sidekiq's own processor loop runs the jobs: `work` starts a
# Sidekiq::Launcher in this process (as Sidekiq::CLI#launch does, concurrency 1, the drill's queue), and the one worker
# class, QdJob, hands each job to the drill (a `deliver` event) and blocks until the drill settles it, then does what a
# Sidekiq job does with that outcome: returns (done); raises, so that Sidekiq's JobRetry schedules the retry or, its
# retries spent, sends the job to the dead set (retry); or sends it to the dead set itself (review). Requests are read and
# answered on a second thread, so heartbeats, snapshots and the settlement reach us while the job blocks.
#
# Sidekiq as its users run it: BasicFetch (BRPOP: a fetched job is no longer in Redis, and nothing ever takes it back),
# its retry schedule (JobRetry's jitter, the scheduled poller), its defaults, or the options they set
# (`--queue-option retry=N`, `average_scheduled_poll_interval=S`, ...). Each drill gets a Redis namespace of its own
# (redis-namespace: every key Sidekiq writes lives under it). Sidekiq keeps no job table, so the child writes down what
# it saw (record.rb); it fences nothing and takes nothing back.

# Our stdout is the protocol's: keep a handle on it, and send everything else written to fd 1 (a library's output) to stderr.
WIRE = STDOUT.dup
WIRE.sync = true
STDOUT.reopen(STDERR)
$stdout = STDERR

require "json"
require "securerandom"
require "sidekiq"
require "sidekiq/launcher"
require "sidekiq/api"
require "redis/namespace" # Sidekiq's RedisConnection requires it for a namespace; loaded now to fail at start, not mid-drill
require_relative "record"

QUEUE = "qd"
OPTIONS = {
  "retry" => {"describe" => "sidekiq_options retry: how many times JobRetry retries a failed job before the dead set (Sidekiq's " \
                            "default: 25). Each job is pushed with 'retry' => min(this, its max_attempts - 1): the drill's budget " \
                            "caps it, as a user who wants M attempts writes retry: M - 1", "default" => 25, "type" => "number"},
  "retry_in" => {"describe" => "the delay before a retry: `drill` (a sidekiq_retry_in block returning the drill's delay in whole " \
                               "seconds, at least 1: Sidekiq .to_i's it and treats 0 as no value) or `sidekiq` (no block: " \
                               "Sidekiq's own count**4 + 15 s); JobRetry adds rand(10) * (count + 1) s either way",
                 "default" => "drill", "type" => {"one_of" => %w[drill sidekiq]}},
  "average_scheduled_poll_interval" => {"describe" => "seconds between the scheduled poller's checks of the retry and schedule " \
                                                      "sets, times the number of Sidekiq processes (Sidekiq's default: 5)",
                                        "default" => 5, "type" => "number"},
  "poll_interval_average" => {"describe" => "seconds between the scheduled poller's checks, not scaled by the process count, and " \
                                            "no 10-s first wait (0: unset, Sidekiq's default, which scales " \
                                            "average_scheduled_poll_interval instead)", "default" => 0, "type" => "number"},
  "timeout" => {"describe" => "shutdown timeout in seconds: how long stopping waits for the job in hand before Sidekiq pushes it " \
                              "back to its queue and kills the processor (Sidekiq's default: 25)", "default" => 25, "type" => "number"}
}.freeze
SRC = "sidekiq-#{Sidekiq::VERSION} lib/sidekiq"
EVIDENCE = {
  "history" => true,
  "refusals" => "Sidekiq refuses no write: a job runs to its end however long it takes, and nothing is recorded against it",
  "epoch" => "Sidekiq has no fencing token: the record counts deliveries, but Sidekiq checks nothing against the count",
  "holder" => true,
  "digest" => true,
  "review" => true,
  "retry-policy" => "Sidekiq does not wait the drill's delay: JobRetry#delay_for adds rand(10) * (count + 1) s of jitter and " \
                    ".to_i's a sidekiq_retry_in (0 falls back to count**4 + 15 s) (#{SRC}/job_retry.rb:218-225), and a due " \
                    "retry waits for the scheduled poller, every average_scheduled_poll_interval x processes, +-50% (scheduled.rb:130-182)"
}.freeze
# The shortest lease the drill may ask for: Sidekiq keeps no lease of its own, so this only guards the drill's renewal pace.
MIN_LEASE_MS = 50
# The Sidekiq processes a drill's namespace may list at once (scheduled.rb:184-193 scales the poll by them): the drill's two
# workers, and a killed one's entry, kept until its 60-s heartbeat key expires (launcher.rb:173, api.rb:785-804).
PROCESSES = 4
MARGIN_S = 3

WIRE_LOCK = Mutex.new
def reply(message)
  line = JSON.generate(message)
  WIRE_LOCK.synchronize { WIRE.write(line + "\n") }
end

# A request refused with a code: nothing changed, so the answer is `fail`.
class Refused < StandardError
  attr_reader :code

  def initialize(code, message)
    super(message)
    @code = code
  end
end

# A job's failure as Sidekiq records it (the drill's error text, never the payload): JobRetry decides what follows.
class QdFailed < StandardError; end

def option_values(given)
  values = OPTIONS.transform_values { |spec| spec["default"] }
  (given || {}).each { |k, v| values[k] = v if OPTIONS.key?(k) }
  values
end

def redis_url(req)
  url = (req["servers"] || {})["redis_url"]
  raise Refused.new("bad_request", "this queue needs a Redis server: servers.redis_url") if url.nil? || url.empty?
  url
end

class Child
  attr_reader :work_asked

  def initialize
    @work_asked = Queue.new
    @record = nil
    @held = nil      # the delivery in hand: its job id, holder, epoch, and where its settlement goes
    @finishing = nil # a retry settlement waiting for Sidekiq's JobRetry to have acted on it
    @launcher = nil
    @taken_back = {} # job id => epoch: deliveries Sidekiq's hard shutdown pushed back while the drill held them
  end

  # --- the queue's set-up: hello, provision, fit, open, teardown ---
  def op_hello(_req)
    {"name" => "sidekiq", "version" => "#{Sidekiq::VERSION} (redis-rb #{Redis::VERSION}, redis-namespace #{Redis::Namespace::VERSION}, BasicFetch)",
     "protocol" => 2, "locator_kind" => "name", "needs" => ["redis_url"], "options" => OPTIONS,
     "description" => "Sidekiq's own processor (BasicFetch, JobRetry, the scheduled poller) on Redis, as its users run it; the child records what it saw",
     "capabilities" => {"evidence" => EVIDENCE, "takeover" => "queue", "clock" => "server", "saga_store" => "beside-the-run",
                        "fencing" => "Sidekiq has no fencing: a job's perform runs to its end and nothing checks who holds it"},
     "ops" => Child.instance_methods.grep(/\Aop_/).map { |m| m.to_s.delete_prefix("op_") }.sort,
     "limits" => {"min_lease_ms" => MIN_LEASE_MS}}
  end

  def op_provision(req) # a namespace of its own per run: Sidekiq's keys (redis-namespace) and the record's
    prefix = "qd-sidekiq-#{req.fetch("run_id")}-#{SecureRandom.random_number(1 << 30)}"
    {"locator" => prefix, "where" => "Redis, keys #{prefix}:*"}
  end

  def op_teardown(req)
    QdRecord::Record.new(redis_url(req), req.fetch("store")).drop(req["store"]) unless req["keep"]
    {}
  end

  def op_fit(req)
    d = req.fetch("demands")
    o = option_values(d["queue_options"])
    if d.fetch("lease_ms") < MIN_LEASE_MS
      return {"ok" => false, "reason" => "the drill's lease of #{d["lease_ms"]} ms is below the #{MIN_LEASE_MS} ms this child keeps"}
    end
    if d.fetch("points").include?("heartbeat")
      return {"ok" => false, "reason" => "Sidekiq has no heartbeat for a job: BasicFetch takes it out of Redis as it fetches it and " \
                                         "nothing renews or expires it, so the heartbeat fault point stands for nothing Sidekiq does"}
    end
    budget = (d.fetch("max_attempts").max || 1)
    retries = retries_for(budget, o)
    mapping = {"retry" => "min(#{o["retry"]}, max_attempts - 1) per job, pushed as 'retry' (#{retries} for a budget of #{budget})",
               "retry_in" => o["retry_in"] == "drill" ? "sidekiq_retry_in: the drill's delay rounded up to whole seconds (at least 1), plus JobRetry's jitter" :
                                                        "Sidekiq's own: count**4 + 15 s, plus JobRetry's jitter",
               "average_scheduled_poll_interval_s" => o["average_scheduled_poll_interval"],
               "poll_interval_average_s" => o["poll_interval_average"].to_f > 0 ? o["poll_interval_average"] : "unset: scaled by the process count",
               "timeout_s" => o["timeout"], "concurrency" => 1, "fetch" => "BasicFetch (BRPOP: the job leaves Redis as it is fetched)",
               "namespace" => "redis-namespace, one per drill", "review" => "the dead set (morgue)",
               "dedupe" => "SET NX of the idempotency key before Sidekiq::Client.push (Sidekiq dedupes nothing; unique jobs are Enterprise)",
               "renewal" => "none: Sidekiq holds no lease (heartbeats change nothing)"}
    answer = {"ok" => true, "mapping" => mapping}
    waits = retry_waits_s(retries, d.fetch("retry_delay"), o)
    unless waits.empty?
      answer["at_least"] = {
        "no_progress_ms" => ((waits.max + MARGIN_S) * 1000).ceil,
        "timeout_ms" => d.fetch("timeout_ms") + (waits.sum * 1000).ceil,
        "why" => "a Sidekiq retry waits its delay plus JobRetry's jitter of up to 9 x (count + 1) s, then up to " \
                 "#{format("%g", poll_wait_s(o))} s for the scheduled poller (#{retries} retries: up to #{waits.map(&:ceil).join(", ")} s)"
      }
    end
    answer
  end

  def retries_for(max_attempts, options)
    [[options["retry"].to_i, max_attempts - 1].min, 0].max
  end

  # How long the poller may take to see a due retry: its first wait (10 s unless poll_interval_average is set, plus up to
  # 5 s) or one interval (the average, +50%), whichever is longer (scheduled.rb:150-157, 195-205).
  def poll_wait_s(o)
    set = o["poll_interval_average"].to_f
    average = set > 0 ? set : PROCESSES * o["average_scheduled_poll_interval"].to_f
    [(set > 0 ? 0 : 10) + 5, 1.5 * average].max
  end

  # The longest each retry of a job may wait, from its failure to its next start.
  def retry_waits_s(retries, delay, o)
    (0...retries).map do |count|
      base = if o["retry_in"] == "drill"
        [(drill_delay_max_ms(count + 1, delay) / 1000.0).ceil, 1].max
      else
        count**4 + 15
      end
      base + 9 * (count + 1) + poll_wait_s(o)
    end
  end

  def drill_delay_max_ms(attempt, r)
    [r["base_ms"] * 2**(attempt - 1), r["cap_ms"]].min + r["jitter_ms"]
  end

  def op_open(req)
    @settings = req
    @options = option_values(req["queue_options"])
    @rng = Random.new(req.fetch("seed"))
    url = redis_url(req)
    @record = QdRecord::Record.new(url, req.fetch("store"))
    Sidekiq.redis = {url: url, namespace: req["store"], size: 6}
    {}
  end

  # --- the producer's side ---
  def op_enqueue(req)
    made, job_id = @record.create(req.fetch("key"), req.fetch("action"), req.fetch("payload"), req.fetch("max_attempts"))
    if made # as its users write it: the job is pushed once, by the producer whose SET NX won the key
      Sidekiq::Client.push("class" => QdJob, "queue" => QUEUE, "args" => [job_id],
        "retry" => retries_for(req["max_attempts"], @options))
    end
    {"outcome" => made ? "created" : "deduplicated", "job_id" => job_id}
  end

  # --- the worker's side: Sidekiq's launcher in this process ---
  def op_work(req)
    raise Refused.new("bad_request", "a work loop is already running") if @launcher
    @work_request = req
    @processed = 0
    @stopping = false
    @work_asked << req
    nil # answered when the loop ends
  end

  def op_stop_work(_req)
    @stopping = true
    {}
  end

  def run_worker(req)
    Sidekiq.options[:queues] = [QUEUE]
    Sidekiq.options[:concurrency] = 1
    Sidekiq.options[:timeout] = @options["timeout"]
    Sidekiq.options[:average_scheduled_poll_interval] = @options["average_scheduled_poll_interval"]
    Sidekiq.options[:poll_interval_average] = @options["poll_interval_average"] if @options["poll_interval_average"].to_f > 0
    Sidekiq.options[:job_logger] = QdJobLogger
    @launcher = Sidekiq::Launcher.new(Sidekiq.options)
    @launcher.run
    poll = [req["poll_ms"].to_i, 10].max / 1000.0
    last_look = 0.0
    loop do
      break if @stopping # Launcher#stop waits for the delivery in hand, up to the shutdown timeout
      if @held.nil?
        break if max_jobs_reached?
        now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        if req["exit_when_drained"] && now - last_look >= [poll, 0.05].max
          last_look = now
          break unless @record.active?
        end
      end
      sleep poll
    end
    @launcher.stop
    # Sidekiq's CLI exits after Launcher#stop; an embedded launcher's heartbeat thread would go on announcing this process
    # (launcher.rb:82-85), so it is ended here as the exit would end it, and the process's entry removed again.
    beat = @launcher.instance_variable_get(:@thread)
    beat&.kill
    beat&.join(1)
    @launcher.send(:clear_heartbeat)
    {"processed" => @processed}
  ensure
    @launcher = nil
  end

  def max_jobs_reached?
    @work_request["max_jobs"].to_i > 0 && @processed >= @work_request["max_jobs"].to_i
  end

  # Whether a job Sidekiq fetched now goes back untouched: the loop was told to end, or max_jobs were handed over.
  def handing_back?
    @stopping || max_jobs_reached?
  end

  # QdJob#perform: a delivery handed to the drill, then what Sidekiq does with its settlement.
  def run_job(job_id, msg)
    worker = @work_request["worker_id"]
    attempt = msg["retry_count"].nil? ? 1 : msg["retry_count"] + 2 # Sidekiq's own count: 0 after the first failure
    job = @record.change(job_id) do |j|
      steps = []
      if j["status"] == "running" # run again while the record says another delivery holds it: a hard shutdown pushed it back
        steps << ["retry", nil, "coordinator", "delivered again: Sidekiq ran the job while the record had it running", nil, {}]
      end
      reason = %w[done review compensating].include?(j["status"]) ? "delivered again" : "started by Sidekiq's processor"
      steps << ["running", worker, "worker", reason, nil,
        {"holder" => worker, "attempts" => attempt, "epoch" => j["epoch"] + 1, "lease_until" => nil}]
    end
    settled = Queue.new
    @held = {job_id: job_id, holder: worker, epoch: job["epoch"], settled: settled}
    @processed += 1
    reply({"event" => "deliver", "delivery" => {"job_id" => job_id, "key" => job["key"], "action" => job["action"],
                                               "payload" => job["payload"], "attempt" => attempt, "max_attempts" => job["max_attempts"],
                                               "epoch" => job["epoch"], "holder" => worker, "token" => nil, "lease_until" => nil}})
    begin
      req = settled.pop
    rescue Sidekiq::Shutdown # the shutdown timeout ran out: Sidekiq pushed the job back (manager.rb:98-124) and ends this thread
      @taken_back[job_id] = job["epoch"]
      @record.change(job_id) do |j| # unless another processor already took it up again (bulk_requeue ran first)
        next [] if j["epoch"] != job["epoch"]
        [["retry", worker, "worker", "Sidekiq's hard shutdown pushed it back to queue:#{QUEUE} (timeout #{@options["timeout"]} s)", nil,
          {"holder" => nil}]]
      end
      raise
    ensure
      @held = nil
    end
    @launcher&.quiet if max_jobs_reached? # fetch no other job: the loop ends with this one
    settle(job, req, msg, attempt)
  end

  def settle(job, req, msg, attempt)
    s = req["settlement"]
    holder = req["holder"]
    free = {"holder" => nil, "lease_until" => nil, "last_error" => s["error"] || job["last_error"]}
    case s["kind"]
    when "lease_lost" # the drill's handler gave the job up: perform returns, and Sidekiq is done with it
      reply({"re" => req["id"], "type" => "ok", "body" => {"status" => nil}})
    when "retry" # raised: JobRetry schedules the retry, or sends the job to the dead set; QdJobLogger answers once it has
      @finishing = {job: job, req: req, jid: msg["jid"], attempt: attempt, dead: nil, retry_in_s: nil,
                    at_ms: QdRecord.now_ms, free: free}
      raise QdFailed, (s["error"] || "retry")
    when "review" # to the dead set, where a person can retry it from the Web UI (JobRetry's send_to_morgue does the same)
      why = s["reason"] || "review"
      outcome = s["awaiting_approval"] ? "awaiting_approval" : "review"
      Sidekiq::DeadSet.new.kill(Sidekiq.dump_json(msg.merge("error_message" => why, "error_class" => "QdReview",
        "failed_at" => Time.now.to_f)), notify_failure: false)
      @record.change(job["id"]) { |_| [["review", holder, "worker", why, nil, free.merge("review_reason" => why, "outcome" => outcome)]] }
      reply({"re" => req["id"], "type" => "ok", "body" => {"status" => "review"}})
    else # done, or compensating (the job waits there: this child has no compensation ops)
      to = s["kind"] == "done" ? "done" : "compensating"
      changes = to == "done" ? free.merge("result_digest" => s["digest"], "outcome" => "done") : free
      @record.change(job["id"]) { |_| [[to, holder, "worker", s["reason"] || "perform returned", nil, changes]] }
      reply({"re" => req["id"], "type" => "ok", "body" => {"status" => to}})
    end
    nil
  end

  # sidekiq_retry_in: the drill's delay for the attempt that failed, in whole seconds (Sidekiq .to_i's it, and 0 means none).
  def retry_in(count)
    return nil unless @options["retry_in"] == "drill" # nil: Sidekiq's own count**4 + 15 s
    r = @settings["retry_delay"]
    ms = [r["base_ms"] * 2**count, r["cap_ms"]].min + @rng.rand(0..r["jitter_ms"])
    seconds = [(ms / 1000.0).ceil, 1].max
    @finishing[:retry_in_s] = seconds if @finishing
    seconds
  end

  # A death handler: JobRetry ran out of retries (job_retry.rb:187-202) and sent the job to the dead set.
  def died(msg)
    @finishing[:dead] = msg if @finishing && @finishing[:jid] == msg["jid"]
  end

  # Once Sidekiq's JobRetry has acted on a raised job (QdJobLogger#prepare wraps it: processor.rb:123-142): the record
  # says what it did, and the settlement is answered.
  def sidekiq_finished(job_hash, error)
    f = @finishing
    return if f.nil? || f[:jid] != job_hash["jid"]
    @finishing = nil
    req, job, s = f[:req], f[:job], f[:req]["settlement"]
    holder = req["holder"]
    unless error.is_a?(Sidekiq::JobRetry::Handled)
      reply({"re" => req["id"], "type" => "info", "code" => "store_error",
             "message" => "Sidekiq did not schedule the retry: #{error ? error.class : "perform returned"}: #{error&.message}"})
      return
    end
    if f[:dead]
      budget = f[:dead]["retry"].is_a?(Integer) ? f[:dead]["retry"] + 1 : Sidekiq.options.fetch(:max_retries, Sidekiq::JobRetry::DEFAULT_MAX_RETRY_ATTEMPTS) + 1
      why = "retries exhausted (#{f[:attempt]} of #{budget}): #{s["error"]}; in Sidekiq's dead set"
      @record.change(job["id"]) { |_| [["review", holder, "worker", why, nil, f[:free].merge("review_reason" => why, "outcome" => "review")]] }
      reply({"re" => req["id"], "type" => "ok", "body" => {"status" => "review"}})
      return
    end
    entry = Sidekiq::RetrySet.new.find_job(f[:jid])
    due_ms = entry ? (entry.score * 1000).round : nil
    delay = due_ms ? [due_ms - f[:at_ms], 0].max : nil
    asked = f[:retry_in_s] ? "sidekiq_retry_in #{f[:retry_in_s]} s" : "count**4 + 15 s"
    why = "JobRetry scheduled retry #{f[:attempt]} (#{asked} plus jitter)#{entry ? "" : ", not found in the retry set"}"
    @record.change(job["id"]) do |_|
      [["retry", holder, "worker", why, delay, f[:free].merge("next_run_at" => due_ms && QdRecord.utc(due_ms))]]
    end
    reply({"re" => req["id"], "type" => "ok", "body" => {"status" => "retry"}})
  end

  def op_settle(req)
    held = @held
    job_id = req.fetch("job_id").to_s
    s = req.fetch("settlement")
    if held.nil? || held[:job_id] != job_id
      if @taken_back[job_id] == req["epoch"]
        raise Refused.new("lease_lost", "job #{job_id} was pushed back to its queue by Sidekiq's hard shutdown")
      end
      raise Refused.new("bad_request", "job #{job_id} is not the delivery in hand")
    end
    unless %w[done retry review compensate lease_lost].include?(s["kind"])
      raise Refused.new("bad_request", "unknown settlement kind #{s["kind"].inspect}")
    end
    if s["kind"] == "done" && !s["digest"].to_s.match?(/\A[0-9a-f]{64}\z/)
      raise Refused.new("bad_request", "done needs a SHA-256 digest")
    end
    held[:settled] << req
    nil # answered by the job, once Sidekiq has done what the settlement asks
  end

  def op_heartbeat(req)
    held = @held
    if held.nil? || [held[:job_id], held[:holder], held[:epoch]] != [req.fetch("job_id").to_s, req["holder"], req["epoch"]]
      raise Refused.new("lease_lost", "job #{req["job_id"]} is not the delivery in hand")
    end
    {"lease_until" => nil} # Sidekiq renews nothing: a fetched job has no lease at all
  end

  # --- a person ---
  # What a person does with a job in the dead set (the Web UI's Retry, api.rb:502-508): takes it out and pushes it again,
  # here with one more retry allowed and its retry count kept, so it runs as the next attempt, once. A job sent to review
  # on its first run (no retry_count yet) is counted as JobRetry counts a first failure (0).
  def op_requeue_from_review(req)
    job_id = req.fetch("job_id").to_s
    entry = Sidekiq::DeadSet.new.find { |e| e.args == [job_id] }
    return {"requeued" => false} if entry.nil?
    moved = false
    @record.change(job_id) do |j|
      next [] unless j["status"] == "review"
      moved = true
      [["pending", nil, "human", "retried from Sidekiq's dead set by #{req.fetch("by")}: #{req.fetch("note")}", nil,
        {"outcome" => nil, "review_reason" => nil, "max_attempts" => [j["max_attempts"], j["attempts"] + 1].max,
         "next_run_at" => QdRecord.utc(QdRecord.now_ms)}]]
    end
    return {"requeued" => false} unless moved
    msg = entry.item
    entry.delete
    Sidekiq::Client.push(msg.merge("retry" => msg["retry"].to_i + 1, "retry_count" => msg["retry_count"] || 0))
    {"requeued" => true}
  end

  # --- what the drill reads ---
  def op_snapshot(req)
    @record.snapshot(req.fetch("history", true) != false)
  end

  def op_progress(_req)
    {"progress" => @record.progress}
  end

  # --- the wire ---
  def serve(line)
    rid = nil
    begin
      req = JSON.parse(line)
      raise Refused.new("bad_request", "a request is a JSON object") unless req.is_a?(Hash)
      rid = req.fetch("id")
      op = req.fetch("op").to_s
      raise Refused.new("unknown_op", "no op #{op.inspect} here") unless respond_to?("op_#{op}")
      if @record.nil? && !%w[hello provision open teardown fit].include?(op)
        raise Refused.new("not_open", "open first")
      end
      body = send("op_#{op}", req)
      reply({"re" => rid, "type" => "ok", "body" => body || {}}) unless body.nil? && %w[work settle].include?(op)
    rescue Refused, KeyError, TypeError, JSON::ParserError => e # fail: refused or a field missing, nothing changed
      code, message = e.is_a?(Refused) ? [e.code, e.message] : ["bad_request", "#{e.class}: #{e.message}"]
      reply({"re" => rid, "type" => "fail", "code" => code, "message" => message})
    rescue Redis::BaseError => e # info: Redis may have done it
      reply({"re" => rid, "type" => "info", "code" => "store_error", "message" => "#{e.class}: #{e.message}"})
    rescue Exception => e # rubocop:disable Lint/RescueException -- a bug: say so, never die silently
      reply({"re" => rid, "type" => "info", "code" => "internal", "message" => "#{e.class}: #{e.message}"})
    end
  end
end

CHILD = Child.new

# The one job class. Its `retry` comes with each job (Client.push); its delay from the block, as the option says.
class QdJob
  include Sidekiq::Worker
  sidekiq_options queue: QUEUE
  sidekiq_retry_in { |count, _exception| CHILD.retry_in(count) }

  attr_accessor :qd_msg

  def perform(job_id)
    CHILD.run_job(job_id.to_s, qd_msg)
  end
end

# Server middleware: hands the job hash to the worker (perform sees only its args), and hands back, untouched, a job
# Sidekiq's processor fetched after the loop was told to end (pushed back as BasicFetch's UnitOfWork#requeue does).
class QdMiddleware
  def call(worker, job, queue)
    if CHILD.handing_back?
      Sidekiq.redis { |conn| conn.rpush("queue:#{queue}", Sidekiq.dump_json(job)) }
      return
    end
    worker.qd_msg = job
    yield
  end
end

# Sidekiq's job logger, whose `prepare` wraps JobRetry (processor.rb:123-124): the child learns there what Sidekiq did.
class QdJobLogger < Sidekiq::JobLogger
  def prepare(job_hash, &block)
    super(job_hash) do
      block.call
      CHILD.sidekiq_finished(job_hash, nil)
    rescue Exception => e # rubocop:disable Lint/RescueException -- Sidekiq's own Handled/Shutdown pass through, re-raised
      CHILD.sidekiq_finished(job_hash, e)
      raise
    end
  end
end

Sidekiq.logger = Sidekiq::Logger.new($stderr, level: Logger::WARN)
Redis.silence_deprecations = true # redis-namespace 1.9 calls redis-rb 4.8 the old way (brpop's timeout, sadd): noise only
Sidekiq.server_middleware { |chain| chain.add QdMiddleware }
Sidekiq.death_handlers << ->(msg, _exception) { CHILD.died(msg) }

Thread.new do
  while (line = $stdin.gets)
    CHILD.serve(line)
  end
  exit!(0) # stdin closed: the drill process is gone or done, and so are we (a blocked job included)
end

loop do
  request = CHILD.work_asked.pop
  begin
    reply({"re" => request["id"], "type" => "ok", "body" => CHILD.run_worker(request)})
  rescue Exception => e # rubocop:disable Lint/RescueException
    reply({"re" => request["id"], "type" => "info", "code" => "internal", "message" => "#{e.class}: #{e.message}"})
  end
end
