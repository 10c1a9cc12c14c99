import { useEffect, useState } from 'react';
import { onToast, type ToastMessage } from '../lib/toast';

const TOAST_MS = 3200;

export function Toasts() {
  const [toasts, setToasts] = useState<ToastMessage[]>([]);

  useEffect(
    () =>
      onToast((toast) => {
        setToasts((current) => [...current.filter((item) => item.text !== toast.text), toast].slice(-3));
        window.setTimeout(() => setToasts((current) => current.filter((item) => item.id !== toast.id)), TOAST_MS);
      }),
    [],
  );

  return (
    <div className="toasts" role="status" aria-live="polite">
      {toasts.map((toast) => (
        <div key={toast.id} className={`toast toast--${toast.tone}`}>
          {toast.text}
        </div>
      ))}
    </div>
  );
}
