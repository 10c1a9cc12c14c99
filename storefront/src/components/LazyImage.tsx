import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { LAZY_IMAGE, loadedImages, watchNearViewport, type ImageState } from '../lib/lazyImages';

interface LazyImageProps {
  src: string;
  alt: string;
  className?: string;
  /** Load now: for the first screen, where waiting would only delay the picture. */
  eager?: boolean;
}

// A series without a cover yet (still being made) shows the fallback at once instead of retrying nothing.
function initialState(src: string): ImageState {
  if (!src) return 'error';
  return loadedImages.has(src) ? 'loaded' : 'loading';
}

/** An image that loads near the viewport, retries 3 times, and never shifts layout (its box is sized by CSS). */
export function LazyImage({ src, alt, className, eager = false }: LazyImageProps) {
  const holder = useRef<HTMLSpanElement>(null);
  const [near, setNear] = useState(eager || loadedImages.has(src));
  const [state, setState] = useState<ImageState>(initialState(src));
  const [attempt, setAttempt] = useState(0);

  // Another picture in the same place starts afresh: adjusted while rendering, not in an effect that
  // would draw every image a second time as the page first renders.
  const [shownSrc, setShownSrc] = useState(src);
  if (src !== shownSrc) {
    setShownSrc(src);
    setAttempt(0);
    setState(initialState(src));
  }

  useEffect(() => {
    if (near || !holder.current) return;
    return watchNearViewport(holder.current, () => setNear(true));
  }, [near]);

  const image = useRef<HTMLImageElement>(null);
  // A picture the page arrived with (rendered on the server) may have loaded, or failed, before the
  // app ran and could hear it: its state is read from the element instead.
  useLayoutEffect(() => {
    const element = image.current;
    if (!element?.complete) return;
    if (element.naturalWidth > 0) onLoad();
    else onError();
    // Once per element: a new attempt is a new element, and its events are heard.
  }, [near]);

  const onError = () => {
    if (attempt < LAZY_IMAGE.retries) {
      window.setTimeout(() => setAttempt((count) => count + 1), 400 * (attempt + 1));
    } else {
      setState('error');
    }
  };

  const onLoad = () => {
    loadedImages.add(src);
    setState('loaded');
  };

  return (
    <span ref={holder} className={`lazy-image ${className ?? ''}`} data-state={state}>
      {near && state !== 'error' && (
        <img
          ref={image}
          key={attempt}
          src={src}
          alt={alt}
          decoding="async"
          draggable={false}
          onLoad={onLoad}
          onError={onError}
        />
      )}
      {state === 'error' && (
        <span className="lazy-image__fallback" role="img" aria-label={alt}>
          <svg viewBox="0 0 24 24" aria-hidden="true" width="28" height="28">
            <path fill="currentColor" d="M4 5h16a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1Zm1 2v8.6l3.3-3.3 3 3 4.2-4.8L19 14V7H5Z" />
          </svg>
        </span>
      )}
    </span>
  );
}
