/** The merchant's evidence files: upload, and download its own and the arbiter's. */
import { downloadRoute, uploadRoute } from '../files';

export const fileRoutes = [
  uploadRoute('/files', 'uploadFile', 'cabinet_or_hmac', 'Upload an evidence file for appeals and their messages'),
  downloadRoute(
    '/files/{file_id}',
    'downloadFile',
    'cabinet_or_hmac',
    'Download an evidence file',
    'The bytes with their sniffed Content-Type, as an attachment. A merchant reads its own files and the files the ' +
      'arbiter attached to messages of its appeals; any other id is 404.',
  ),
];
