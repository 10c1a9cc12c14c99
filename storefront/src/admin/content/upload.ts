import { defaultOptions, Upload } from 'tus-js-client';
import { authHeaders, readCredential } from '../api';

/**
 * One episode's file sent resumably (tus 1.0.0) to POST /api/admin/uploads: a dropped connection
 * resumes where it stopped (tus-js-client remembers the upload's address by file fingerprint).
 * `onRetry` says a request failed and the upload will carry on from the offset the server has, so
 * the page can say so rather than sit on a stalled percentage.
 */
export function uploadEpisode(
  file: File,
  meta: { seriesId: string; number: number; title: string },
  onProgress: (sent: number, total: number) => void,
  onRetry: () => void,
): { done: Promise<void>; abort: () => void } {
  let upload: Upload;
  const done = new Promise<void>((resolve, reject) => {
    upload = new Upload(file, {
      endpoint: '/api/admin/uploads',
      headers: authHeaders(readCredential()),
      metadata: { seriesId: meta.seriesId, number: String(meta.number), title: meta.title, filename: file.name, filetype: file.type },
      chunkSize: 8 * 1024 * 1024,
      retryDelays: [0, 1000, 3000, 5000],
      removeFingerprintOnSuccess: true,
      onProgress,
      onShouldRetry: (error, attempt, options) => {
        const retry = defaultOptions.onShouldRetry?.(error, attempt, options) ?? false;
        if (retry) onRetry();
        return retry;
      },
      onSuccess: () => resolve(),
      onError: (error) => reject(error),
    });
    upload.findPreviousUploads().then((previous) => {
      if (previous[0]) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    }, reject);
  });
  return { done, abort: () => void upload?.abort() };
}
