export interface StreamHandle {
  destroy: () => void;
}

/**
 * Plays an HLS master playlist: hls.js (adaptive bitrate over Media Source Extensions) where MSE exists,
 * else the browser's own HLS (iPhone Safari). hls.js loads only when needed, outside the first bundle.
 * `onFatal` gets hls.js's error type once its one recovery attempt per kind has failed.
 */
export async function attachStream(video: HTMLVideoElement, url: string, onFatal: (errorType: string) => void): Promise<StreamHandle> {
  const hasMse = typeof window.MediaSource !== 'undefined' || 'ManagedMediaSource' in window;
  if (!hasMse && video.canPlayType('application/vnd.apple.mpegurl')) {
    video.src = url;
    return { destroy: () => video.removeAttribute('src') };
  }
  const { default: Hls } = await import('hls.js/light');
  if (!Hls.isSupported()) {
    video.src = url;
    return { destroy: () => video.removeAttribute('src') };
  }
  const hls = new Hls({ capLevelToPlayerSize: true, startLevel: -1, maxBufferLength: 20 });
  let recoveredMedia = false;
  let recoveredNetwork = false;
  hls.on(Hls.Events.ERROR, (_event, data) => {
    if (!data.fatal) return;
    if (data.type === Hls.ErrorTypes.NETWORK_ERROR && !recoveredNetwork) {
      recoveredNetwork = true;
      hls.startLoad();
    } else if (data.type === Hls.ErrorTypes.MEDIA_ERROR && !recoveredMedia) {
      recoveredMedia = true;
      hls.recoverMediaError();
    } else {
      onFatal(data.type);
    }
  });
  hls.loadSource(url);
  hls.attachMedia(video);
  return { destroy: () => hls.destroy() };
}
