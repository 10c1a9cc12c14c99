export interface ToastMessage {
  id: number;
  text: string;
  tone: 'error' | 'info' | 'success';
}

type Listener = (toast: ToastMessage) => void;

const listeners = new Set<Listener>();
let nextId = 1;

export function showToast(text: string, tone: ToastMessage['tone'] = 'error'): void {
  const toast = { id: nextId++, text, tone };
  listeners.forEach((listener) => listener(toast));
}

export function onToast(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
