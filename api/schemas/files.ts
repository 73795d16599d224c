import { z } from 'zod';
import { int64String, timestamp, uuid } from './common';

export const fileSchema = z
  .object({
    file_id: z.string().uuid(),
    content_type: z.enum(['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'text/plain']).openapi({
      description: 'sniffed from the bytes, never taken from the request',
    }),
    size: int64String.openapi({ description: 'bytes, int64 as a string' }),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .openapi({ description: 'lowercase hex SHA-256 of the bytes' }),
    created_at: timestamp,
  })
  .openapi('EvidenceFile');

export const fileResponse = z.object({ file: fileSchema }).openapi('EvidenceFileResponse');

export const uploadForm = z
  .object({ file: z.string().openapi({ type: 'string', format: 'binary', description: 'the evidence file (part name `file`)' }) })
  .openapi('EvidenceUpload');

export const fileParams = z.object({ file_id: uuid('file_id') });
