import { Logo } from './Logo';

/** What shows for the instant before the first page is ready. */
export function AppSplash() {
  return (
    <div className="splash" aria-busy="true">
      <Logo />
    </div>
  );
}
