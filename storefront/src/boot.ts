// The page's only script. A page the gateway sent drawn (entry-server.tsx) is painted first, and the
// app (main.tsx) is fetched and run after that paint: the picture a visitor waits for shares the
// network with nothing but the style sheets, and is on screen before any of the app's code runs. A
// page sent undrawn (the splash) has nothing to show until the app runs, so it starts at once.
import './styles/base.css';
import './styles/shell.css';
import './styles/components.css';

const start = () => void import('./main');

if (document.getElementById('app')?.hasAttribute('data-server-rendered')) requestAnimationFrame(() => setTimeout(start, 0));
else start();
