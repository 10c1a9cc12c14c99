import type { ReactNode } from 'react';
import { Logo } from '../../components/Logo';
import './account.css';

/** The frame of the account forms: a centered card over a dimmed poster wall. */
export function AuthLayout({ title, subtitle, children }: { title: string; subtitle?: string; children: ReactNode }) {
  return (
    <div className="auth">
      <div className="auth__card">
        <Logo />
        <h1 className="auth__title">{title}</h1>
        {subtitle && <p className="auth__subtitle">{subtitle}</p>}
        {children}
      </div>
    </div>
  );
}
