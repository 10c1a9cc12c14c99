// The page's only script. A page the server rendered (entry-server.tsx) is painted first, and the app
// (main.tsx), which hydrates it, is fetched and run once its largest picture is painted too: that
// picture shares the network with nothing but the style sheets, and is on screen before any of the
// app's code runs. A page rendered on the client (the splash) has nothing to show until the app
// runs, so it starts at once.
import './styles/base.css';
import './styles/shell.css';
import './styles/components.css';
import { stripLandingSecrets } from './lib/sensitiveUrl';

// First of all: a reset token or sign-in code in the address is kept in memory and taken out of the
// address bar before any pixel, analytics or Sentry code (all of it loaded by main.tsx) could read it.
stripLandingSecrets();

const app = document.getElementById('app');
const serverRendered = Boolean(app?.hasAttribute('data-server-rendered'));

// A tap on a button of the server-rendered page, or a choice in one of its lists, made before React
// has hydrated it, is done again once it has: the same element, now with the app behind it. (Links
// need nothing: the browser follows them, to a page the server renders too.)
const early: Array<{ target: HTMLElement; choice?: string }> = [];
const remember = (event: Event) => {
  if (!(event.target instanceof Element)) return;
  if (event.type === 'click') {
    const button = event.target.closest('button');
    if (button && app?.contains(button)) early.push({ target: button });
  } else if (event.target instanceof HTMLSelectElement && app?.contains(event.target)) {
    // Hydration sets the list back to what the server rendered: the choice is kept here.
    early.push({ target: event.target, choice: event.target.value });
  }
};

function replay(): void {
  document.removeEventListener('click', remember, true);
  document.removeEventListener('change', remember, true);
  for (const { target, choice } of early.splice(0)) {
    if (!target.isConnected) continue;
    if (choice === undefined) {
      target.click();
    } else {
      (target as HTMLSelectElement).value = choice;
      target.dispatchEvent(new Event('change', { bubbles: true }));
    }
  }
}

const start = () =>
  void import('./main')
    .then((main) => main.start())
    .then(replay)
    // The server-rendered page stays, its links working: nothing else to fall back to.
    .catch((error: unknown) => console.error('the app could not start', error));

/** The longest the app waits for the page's picture: on a very slow link, the page's buttons matter more. */
const PICTURE_WAIT_MS = 3000;

/**
 * Once the server-rendered page's largest picture (the one the gateway preloads) is decoded, or has failed, or
 * PICTURE_WAIT_MS have passed: the app's first tasks then come after the frame that paints it, not
 * before, however the picture and the scripts race on the network.
 */
function pictureReady(): Promise<unknown> {
  const href = document.querySelector<HTMLLinkElement>('link[rel="preload"][as="image"][fetchpriority="high"]')?.href;
  if (!href) return Promise.resolve();
  const picture = new Image();
  picture.src = href;
  const decoded = typeof picture.decode === 'function' ? picture.decode().catch(() => undefined) : Promise.resolve();
  return Promise.race([decoded, new Promise((resolve) => setTimeout(resolve, PICTURE_WAIT_MS))]);
}

if (serverRendered) {
  document.addEventListener('click', remember, true);
  document.addEventListener('change', remember, true);
  void pictureReady().then(() => requestAnimationFrame(() => setTimeout(start, 0)));
} else {
  start();
}
