import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The names of the queues on the local RabbitMQ that start with `prefix` (rabbitmqctl: no management plugin needed). */
export async function rabbitmqQueuesStartingWith(prefix: string): Promise<string[]> {
  const { stdout } = await run('rabbitmqctl', ['list_queues', 'name', '--quiet', '--no-table-headers']);
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((name) => name.startsWith(prefix));
}
