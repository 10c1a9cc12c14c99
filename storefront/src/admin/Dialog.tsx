import { useEffect, useId, useRef, type ReactNode } from 'react';

/** A modal dialog: focus moves into it and back, Escape closes it, the page behind is inert. */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const first = box.current?.querySelector<HTMLElement>('input, select, textarea, button');
    (first ?? box.current)?.focus();
    // The innermost dialog alone closes (a confirmation opened over another).
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && (event.target as Element | null)?.closest?.('[role=dialog]') === box.current) onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      before?.focus?.();
    };
  }, [onClose]);
  return (
    <div className="console-backdrop">
      <div className="console-dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={box} tabIndex={-1}>
        <h2 id={titleId}>{title}</h2>
        {children}
      </div>
    </div>
  );
}
