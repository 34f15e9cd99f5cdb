import { request } from 'node:http';

/** A world's answer to a hand-built request. */
export interface RawAnswer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** One hand-built request to a world on 127.0.0.1, for what the client would never send (or does not expose). */
export function raw(url: string, method: string, path: string, body?: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'), headers: res.headers }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}
