/** Multipart uploads for the evidence-file tests: bodies built byte by byte and signed over their raw bytes. */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { API_URL, readResponse, hmacHeaders, type ApiResponse, type KeyPair } from './api';

export const FILES = '/api/v1/p2p/merchant/files';

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

export function multipart(parts: Part[], options: { close?: boolean } = {}) {
  const boundary = `----test${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.contentType ? `Content-Type: ${p.contentType}\r\n` : ''}\r\n`));
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** One file in the part named `file`. */
export const filePart = (data: Buffer | string, filename = 'evidence.bin', contentType = 'application/octet-stream') =>
  multipart([{ name: 'file', filename, contentType, data }]);

async function send(url: string, headers: Record<string, string>, body: Buffer, contentType: string): Promise<ApiResponse> {
  const response = await fetch(url.startsWith('http') ? url : API_URL + url, {
    method: 'POST',
    headers: { 'Content-Type': contentType, ...headers },
    body: new Uint8Array(body),
  });
  return readResponse(response);
}

/** A multipart request signed with the merchant pair over the raw bytes of the body. */
export function signedUpload(keys: KeyPair, upload: { body: Buffer; contentType: string }, path = FILES) {
  return send(path, hmacHeaders(keys, upload.body as unknown as string), upload.body, upload.contentType);
}

export function bearerUpload(token: string, upload: { body: Buffer; contentType: string }, path = FILES) {
  return send(path, { Authorization: `Bearer ${token}` }, upload.body, upload.contentType);
}

/** Downloads a file: the raw bytes and the response. */
export async function download(headers: Record<string, string>, path: string) {
  const response = await fetch(API_URL + path, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Tiny but real files of each accepted type. */
export const SAMPLES = {
  png: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'),
  pdf: Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'),
  jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]),
  webp: Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(14)]),
  text: Buffer.from('The payer paid at 12:03, receipt no. 4711.\n'),
  exe: Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62), Buffer.from('PE\0\0'), Buffer.alloc(64)]),
  zip: Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(40)]),
};

/** The answer to a raw request: status, head and body, and whether it came before the whole body was sent. */
export interface RawAnswer {
  status: number;
  head: string;
  headers: Record<string, string>;
  text: string;
  /** The server answered while part of the body was still held back by the client: it did not wait to read it. */
  beforeBodySent: boolean;
}

export interface HeldRequest {
  answer: Promise<RawAnswer>;
  /** Sends the rest of the body. */
  finish(): void;
  /** Drops the connection mid-body (a client that gives up). */
  abort(): void;
  /** Ends the client's side mid-body: the body arrives truncated. */
  truncate(): void;
}

/**
 * A POST over a raw socket that announces its whole body (Content-Length) but sends only the first
 * `sendFirst` bytes until finish() — an upload in flight, for the server to hold or refuse unread.
 */
export function heldRequest(baseUrl: string, path: string, headers: Record<string, string>, body: Buffer, sendFirst: number, timeoutMs = 10_000): HeldRequest {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  let sent = false;
  let data = Buffer.alloc(0);
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    let result: RawAnswer | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms (the server is still reading; got: ${data.toString('latin1').slice(0, 200)})`));
    }, timeoutMs);
    const settle = () => {
      clearTimeout(timer);
      if (result) resolve(result);
      else reject(new Error(`connection closed without an answer: ${data.toString('latin1').slice(0, 200)}`));
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf('\r\n\r\n');
      if (result || end < 0) return;
      const head = data.subarray(0, end).toString('latin1');
      const fields = Object.fromEntries(
        head
          .split('\r\n')
          .slice(1)
          .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const length = Number(fields['content-length'] ?? 0);
      if (data.length < end + 4 + length) return;
      result = {
        status: Number(head.slice(9, 12)),
        head,
        headers: fields,
        text: data.subarray(end + 4, end + 4 + length).toString('utf8'),
        beforeBodySent: !sent,
      };
      settle();
      socket.destroy();
    });
    socket.on('close', settle);
    socket.on('error', () => undefined);
  });
  answer.catch(() => undefined); // a test that fails before awaiting it must not crash the worker
  const lines = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, `Content-Length: ${body.length}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  socket.write(body.subarray(0, sendFirst));
  return {
    answer,
    finish() {
      sent = true;
      socket.write(body.subarray(sendFirst));
    },
    abort() {
      socket.destroy();
    },
    truncate() {
      socket.end();
    },
  };
}

/** A signed upload held in flight (heldRequest): headers signed over the whole body, `sendFirst` bytes sent. */
export function heldUpload(baseUrl: string, keys: KeyPair, upload: { body: Buffer; contentType: string }, sendFirst = 100, path = FILES) {
  return heldRequest(baseUrl, path, { 'Content-Type': upload.contentType, ...hmacHeaders(keys, upload.body) }, upload.body, sendFirst);
}
