/** The names a URL's host takes when the server is on this machine (a loopback address). */
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Whether `url` names a server on this machine. */
export function isOnThisMachine(url: string): boolean {
  return LOCAL_HOSTS.has(new URL(url).hostname);
}
