/** Multipart uploads for the evidence-file tests: bodies built byte by byte and signed over their raw bytes. */
import { randomBytes } from 'node:crypto';
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

/** A multipart request signed with the merchant pair over the raw bytes of the body (spec 5.1). */
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
  png: Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  ),
  pdf: Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'),
  jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]),
  webp: Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(14)]),
  text: Buffer.from('The payer paid at 12:03, receipt no. 4711.\n'),
  exe: Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62), Buffer.from('PE\0\0'), Buffer.alloc(64)]),
  zip: Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(40)]),
};
