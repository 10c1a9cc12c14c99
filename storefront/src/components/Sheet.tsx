import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { useT } from '../i18n/I18nProvider';
import { CloseIcon } from './PageIcons';

interface SheetProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
}

/** A modal bottom sheet on phones (a centered dialog on desktops), built on <dialog> for focus and Escape. */
export function Sheet({ title, onClose, children }: SheetProps) {
  const t = useT();
  const dialog = useRef<HTMLDialogElement>(null);

  useLayoutEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) {
      if (typeof element.showModal === 'function') element.showModal();
      else element.setAttribute('open', '');
    }
    // Closing (rather than only removing) the dialog hands focus back to what opened it.
    return () => {
      if (typeof element.close === 'function') element.close();
    };
  }, []);

  return (
    <dialog
      ref={dialog}
      className="sheet"
      aria-label={title}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === dialog.current) onClose();
      }}
    >
      <div className="sheet__body">
        <div className="sheet__head">
          <h2>{title}</h2>
          <button type="button" className="icon-button" onClick={onClose} aria-label={t('common.close')}>
            <CloseIcon />
          </button>
        </div>
        {children}
      </div>
    </dialog>
  );
}
