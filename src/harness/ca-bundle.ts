/*
 * Node reads and parses every certificate NODE_EXTRA_CA_CERTS names when a
 * process starts, before any of its code runs: with a system bundle of about
 * 140 certificates that is 80 ms of CPU a process here, more than the rest of
 * a drill child's start-up, and a drill starts about 180 processes. A child
 * whose every connection stays on this machine (the embedded queue, a server
 * on a loopback address, the world on 127.0.0.1) opens no TLS connection that
 * could need the bundle, so such children start without it. A user's own
 * queue (a process or an adapter module) keeps it: what its code connects to
 * is not the drill's to know.
 */

/** The variable Node reads the extra certificates' file from. */
const CA_BUNDLE_ENV = 'NODE_EXTRA_CA_CERTS';

/** What a child's environment is given so that it starts without the extra certificates (an undefined value is left out of it). */
export const WITHOUT_CA_BUNDLE: Readonly<Record<string, undefined>> = { [CA_BUNDLE_ENV]: undefined };
