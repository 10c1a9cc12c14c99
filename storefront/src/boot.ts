// The page's only script. A page the gateway sent drawn (entry-server.tsx) is painted first, and the
// app (main.tsx) is fetched and run after that paint: the picture a visitor waits for shares the
// network with nothing but the style sheets, and is on screen before any of the app's code runs. A
// page sent undrawn (the splash) has nothing to show until the app runs, so it starts at once.
import './styles/base.css';
import './styles/shell.css';
import './styles/components.css';

const app = document.getElementById('app');
const drawn = Boolean(app?.hasAttribute('data-server-rendered'));

// A tap on a button of the drawn page, or a choice in one of its lists, made before the app has taken
// the page over, is done again once it has: the same element, now with the app behind it. (Links
// need nothing: the browser follows them, to a page the gateway draws too.)
const early: Array<{ target: HTMLElement; choice?: string }> = [];
const remember = (event: Event) => {
  if (!(event.target instanceof Element)) return;
  if (event.type === 'click') {
    const button = event.target.closest('button');
    if (button && app?.contains(button)) early.push({ target: button });
  } else if (event.target instanceof HTMLSelectElement && app?.contains(event.target)) {
    // The app's first render sets the list back to what it shows: the choice is kept here.
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
    // The drawn page stays, its links working: nothing else to fall back to.
    .catch((error: unknown) => console.error('the app could not start', error));

if (drawn) {
  document.addEventListener('click', remember, true);
  document.addEventListener('change', remember, true);
  requestAnimationFrame(() => setTimeout(start, 0));
} else {
  start();
}
