# frozen_string_literal: true

# What the child saw Sidekiq do, kept in Redis beside Sidekiq's own keys: the drill's view of each job.
#
# Sidekiq keeps no job table: a job is a JSON string in a list (queue:NAME), then nowhere while a processor runs it
# (BasicFetch's BRPOP took it out of Redis), then in the retry or dead sorted set, or gone. So the child writes down, in
# one Redis transaction each, what happened as it happened: the producer's enqueue, each time Sidekiq's processor started
# the job (a delivery), and how the job ended. Nothing here decides anything for Sidekiq: a write is never refused, a job
# is never taken back; the record only says what the library did, in the judge's six states. Keys (P is the drill's
# namespace, the same one Sidekiq's keys live under): P:rec:next (job ids), P:rec:key:<key> (the job of an idempotency
# key), P:rec:job:<id> (a hash, each value JSON), P:rec:history (a list of JSON entries). The twin of
# examples/celery-queue/record.py.

require "json"
require "connection_pool"
require "redis"

module QdRecord
  JOB_FIELDS = %w[id key action payload status outcome attempts max_attempts holder lease_until epoch next_run_at
    last_error review_reason result_digest created_at updated_at].freeze

  # Fixed-width UTC text, so that comparing the texts compares the times.
  def self.utc(ms)
    Time.at(ms / 1000, ms % 1000, :millisecond).utc.strftime("%Y-%m-%dT%H:%M:%S.%LZ")
  end

  def self.now_ms
    Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)
  end

  class Record
    # One script, so that a key, its job and the job's first history entry exist together or not at all.
    CREATE = <<~LUA
      local id = redis.call('GET', KEYS[1])
      if id then return {0, id} end
      id = tostring(redis.call('INCR', KEYS[2]))
      redis.call('SET', KEYS[1], id)
      local job, entry = cjson.decode(ARGV[1]), cjson.decode(ARGV[2])
      job['id'], entry['job_id'] = id, id
      for k, v in pairs(job) do redis.call('HSET', KEYS[3] .. id, k, cjson.encode(v)) end
      redis.call('RPUSH', KEYS[4], cjson.encode(entry))
      return {1, id}
    LUA

    def initialize(redis_url, prefix)
      # A connection per thread at a time: the processor's writes, the request thread's snapshots.
      @pool = ConnectionPool.new(size: 3, timeout: 5) { Redis.new(url: redis_url, reconnect_attempts: 1) }
      @p = "#{prefix}:rec:"
    end

    def self.decode(raw)
      raw.empty? ? nil : raw.transform_values { |v| JSON.parse(v) }
    end

    def job(job_id)
      @pool.with { |r| Record.decode(r.hgetall("#{@p}job:#{job_id}")) }
    end

    # The job of `key`: [true, id] when this call made it, [false, id] when one was there.
    def create(key, action, payload, max_attempts)
      at = QdRecord.utc(QdRecord.now_ms)
      job = JOB_FIELDS.to_h { |f| [f, nil] }.merge("key" => key, "action" => action, "payload" => payload, "status" => "pending",
        "attempts" => 0, "epoch" => 0, "max_attempts" => max_attempts, "created_at" => at, "updated_at" => at, "next_run_at" => at)
      entry = Record.entry(job, nil, "pending", nil, "producer", "enqueued", at)
      made, id = @pool.with do |r|
        r.eval(CREATE, keys: ["#{@p}key:#{key}", "#{@p}next", "#{@p}job:", "#{@p}history"], argv: [JSON.generate(job), JSON.generate(entry)])
      end
      [made == 1, id.to_s]
    end

    def self.entry(job, from, to, worker, actor, reason, at, delay = nil)
      {"job_id" => job["id"], "kind" => "transition", "from" => from, "to" => to, "attempt" => job["attempts"],
       "epoch" => job["epoch"], "worker" => worker, "actor" => actor, "reason" => reason, "at" => at, "retry_delay_ms" => delay}
    end

    # Applies the steps the block returns for the job to it in one optimistic transaction (WATCH, retried on a race).
    # Each step is [to, worker, actor, reason, delay, changes]: it moves the job to `to` (a history entry when the state
    # changes) and sets `changes`. Returns the job as it ends.
    def change(job_id)
      key = "#{@p}job:#{job_id}"
      @pool.with do |r|
        loop do
          done = r.watch(key) do
            job = Record.decode(r.hgetall(key))
            raise KeyError, "no job #{job_id} in the record" if job.nil?
            entries = []
            at = QdRecord.utc(QdRecord.now_ms)
            yield(job).each do |to, worker, actor, reason, delay, changes|
              before = job["status"]
              job = job.merge(changes).merge("status" => to, "updated_at" => at)
              entries << Record.entry(job, before, to, worker, actor, reason, at, delay) if to != before
            end
            written = r.multi do |tx|
              tx.hset(key, job.transform_values { |v| JSON.generate(v) })
              entries.each { |e| tx.rpush("#{@p}history", JSON.generate(e)) }
            end
            written.nil? ? nil : job
          end
          return done unless done.nil?
        end
      end
    end

    # Every job and the history, read in one MULTI so that they agree.
    def snapshot(with_history)
      @pool.with do |r|
        count = (r.get("#{@p}next") || 0).to_i
        *jobs, history = r.multi do |tx|
          (1..count).each { |n| tx.hgetall("#{@p}job:#{n}") }
          tx.lrange("#{@p}history", 0, -1)
        end
        entries = with_history ? history.each_with_index.map { |e, i| JSON.parse(e).merge("seq" => i + 1) } : []
        {"jobs" => jobs.filter_map { |raw| Record.decode(raw) }, "history" => entries}
      end
    end

    def progress
      @pool.with { |r| r.llen("#{@p}history").to_s }
    end

    # Whether any job is pending, retrying or running.
    def active?
      snapshot(false)["jobs"].any? { |job| %w[pending retry running].include?(job["status"]) }
    end

    # Deletes every key under `prefix` (Sidekiq's, namespaced by redis-namespace, and the record's): nobody else's.
    def drop(prefix)
      pattern = prefix.gsub(/[*?\[\]\\]/) { |c| "\\#{c}" } + ":*"
      @pool.with do |r|
        r.scan_each(match: pattern, count: 500).each_slice(100) { |keys| r.unlink(*keys) }
      end
    end
  end
end
