#!/usr/bin/ruby
# frozen_string_literal: true

# What Sidekiq 6.4.1 with BasicFetch does with a job whose worker process is SIGKILLed while the job runs. Sidekiq
# alone, no queue-drill code. `ruby probe_lost_on_kill.rb [REDIS_URL]` (default: $QD_REDIS_URL, else
# redis://127.0.0.1:6379): pushes one job under a fresh namespace, starts a Sidekiq process that picks it up, SIGKILLs it
# mid-job, starts a second Sidekiq process, pushes a canary job to show the second one fetches, waits a bounded time, and
# prints one JSON line: did the job run again, is it in the queue, the retry, schedule or dead set. Removes its keys and
# processes. Exit 0 when it saw what it reports (the job started, the kill landed, the second process ran the canary).
#
# What the source says it will see: BasicFetch#retrieve_work BRPOPs the job out of queue:NAME (lib/sidekiq/fetch.rb:47),
# and UnitOfWork#acknowledge does nothing (fetch.rb:12-14): while it runs, the job is in no Redis key. Only a shutdown
# whose timeout ran out pushes it back (manager.rb:98-119, from Launcher#stop); a SIGKILL runs no code, so nothing does.

require "json"
require "securerandom"
require "sidekiq"
require "sidekiq/api"
require "redis/namespace"

WORKER = ARGV[0] == "--worker" # a child: --worker NAMESPACE URL
URL = (WORKER ? ARGV[2] : ARGV[0]) || ENV["QD_REDIS_URL"] || "redis://127.0.0.1:6379"

# The job: notes each start (pid) under the namespace, then works for a long time, or at once for the canary.
class ProbeJob
  include Sidekiq::Worker
  sidekiq_options queue: "probe", retry: 3

  def perform(kind)
    Sidekiq.redis { |c| c.rpush("starts", "#{kind}:#{Process.pid}") }
    sleep 60 if kind == "victim"
  end
end

if WORKER # a Sidekiq process, as the CLI would run it (launcher.rb): concurrency 1 on queue "probe"
  $stdout = $stderr
  require "sidekiq/launcher"
  Sidekiq.logger.level = Logger::WARN
  Redis.silence_deprecations = true
  Sidekiq.redis = {url: URL, namespace: ARGV[1], size: 5}
  Sidekiq.options.merge!(queues: ["probe"], concurrency: 1, poll_interval_average: 1)
  Sidekiq::Launcher.new(Sidekiq.options).run
  sleep
end

ns = "qd-probe-#{Process.pid}-#{SecureRandom.hex(4)}"
Redis.silence_deprecations = true
Sidekiq.redis = {url: URL, namespace: ns, size: 2}
raw = Redis.new(url: URL)
start = -> { spawn(RbConfig.ruby, __FILE__, "--worker", ns, URL, out: :err) }
starts = -> { Sidekiq.redis { |c| c.lrange("starts", 0, -1) } }
until_true = lambda do |seconds, &cond|
  deadline = Time.now + seconds
  sleep 0.1 until cond.call || Time.now > deadline
  cond.call
end
pids = []
result = {"sidekiq" => Sidekiq::VERSION, "fetch" => "BasicFetch", "namespace" => ns}
ok = false
begin
  jid = Sidekiq::Client.push("class" => ProbeJob, "args" => ["victim"])
  pids << (first = start.call)
  result["started"] = until_true.call(15) { starts.call.any? { |s| s.start_with?("victim:") } }
  raise "the job never started" unless result["started"]
  Process.kill(:KILL, first)
  Process.wait(first)
  result["killed_mid_job"] = true
  pids << start.call
  Sidekiq::Client.push("class" => ProbeJob, "args" => ["canary"])
  result["second_process_ran_canary"] = until_true.call(15) { starts.call.any? { |s| s.start_with?("canary:") } }
  waited = 12 # past the second process's first scheduled poll (1 s average, first wait up to 5 s: scheduled.rb:195-205)
  sleep waited
  victim_starts = starts.call.count { |s| s.start_with?("victim:") }
  in_set = ->(set) { !set.find_job(jid).nil? }
  queued = Sidekiq::Queue.new("probe").any? { |j| j.jid == jid }
  result.merge!("waited_s_after_restart" => waited, "runs" => victim_starts, "run_again" => victim_starts > 1,
    "in_queue" => queued, "in_retry" => in_set.call(Sidekiq::RetrySet.new), "in_schedule" => in_set.call(Sidekiq::ScheduledSet.new),
    "in_dead" => in_set.call(Sidekiq::DeadSet.new))
  result["lost"] = !result["run_again"] && !queued && !result["in_retry"] && !result["in_schedule"] && !result["in_dead"]
  ok = result["second_process_ran_canary"]
rescue => e
  result["error"] = "#{e.class}: #{e.message}"
ensure
  pids.each do |pid|
    Process.kill(:KILL, pid)
    Process.wait(pid)
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  end
  pattern = ns.gsub(/[*?\[\]\\]/) { |c| "\\#{c}" } + ":*"
  raw.scan_each(match: pattern).each_slice(100) { |keys| raw.unlink(*keys) }
end
puts JSON.generate(result)
exit(ok ? 0 : 1)
