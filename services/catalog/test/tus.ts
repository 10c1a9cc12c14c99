import http from 'node:http';
import { eventually } from '@cliffhanger/platform/testing';

/** `Upload-Metadata`: each key with its value in base64, comma-separated (tus 1.0.0, creation). */
export const uploadMetadata = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');

/**
 * A raw tus 1.0.0 client for tests and the upload bench: every request as the protocol writes it, and
 * a PATCH whose connection drops part-way, so what a resume re-sends can be counted.
 */
export function tusClient(baseUrl: string, headers: Record<string, string> = {}) {
  const common = { 'tus-resumable': '1.0.0', ...headers };
  let sent = 0;
  const urlOf = (location: string) => new URL(location, baseUrl).toString();

  async function patch(location: string, offset: number, bytes: Buffer): Promise<Response> {
    sent += bytes.length;
    return fetch(urlOf(location), {
      method: 'PATCH',
      headers: { ...common, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
      body: new Uint8Array(bytes),
    });
  }

  return {
    /** Bytes sent in PATCH bodies so far, dropped ones included. */
    get sent() {
      return sent;
    },
    create: (length: number, metadata: Record<string, string>) =>
      fetch(urlOf('/api/admin/uploads'), { method: 'POST', headers: { ...common, 'upload-length': String(length), 'upload-metadata': uploadMetadata(metadata) } }),
    /** The server's offset (HEAD), or null when it has no such upload. */
    async offset(location: string): Promise<number | null> {
      const answer = await fetch(urlOf(location), { method: 'HEAD', headers: common });
      return answer.status === 200 ? Number(answer.headers.get('upload-offset')) : null;
    },
    patch,
    remove: (location: string) => fetch(urlOf(location), { method: 'DELETE', headers: common }),
    /** Sends `bytes` from `offset` in chunks; answers the last PATCH's answer. */
    async sendFrom(location: string, file: Buffer, offset: number, chunkSize: number): Promise<Response> {
      let answer: Response | null = null;
      for (let at = offset; at < file.length; ) {
        answer = await patch(location, at, file.subarray(at, at + chunkSize));
        if (answer.status !== 204) return answer;
        at = Number(answer.headers.get('upload-offset'));
      }
      return answer!;
    },
    /**
     * A PATCH announcing `bytes` whose connection drops once `cut` of them are written and
     * `arrived()` says the server has them (without it, the dead request may reach the server after
     * the client's HEAD, moving the offset behind the client's back).
     */
    async droppedPatch(location: string, offset: number, bytes: Buffer, cut: number, arrived: () => Promise<boolean> | boolean = () => true): Promise<void> {
      const request = http.request(urlOf(location), {
        method: 'PATCH',
        headers: { ...common, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset), 'content-length': String(bytes.length) },
      });
      request.on('error', () => {});
      sent += cut;
      await new Promise<void>((resolve) => request.write(bytes.subarray(0, cut), () => resolve()));
      await eventually(arrived, 30_000, `the server to receive ${cut} bytes of a PATCH`);
      request.destroy();
    },
  };
}
