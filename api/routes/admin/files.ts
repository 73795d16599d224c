/** The arbiter's evidence files: upload for admin messages, download any. */
import { downloadRoute, uploadRoute } from '../files';

export const fileRoutes = [
  uploadRoute('/files', 'adminUploadFile', 'operator', 'Upload an evidence file as the arbiter (for admin appeal messages)'),
  downloadRoute('/files/{file_id}', 'adminDownloadFile', 'operator', 'Download any evidence file (arbiter)', 'Operators read every file; unknown ids are 404.'),
];
