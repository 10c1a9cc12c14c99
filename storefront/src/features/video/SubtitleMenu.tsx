import { useEffect, useId, useRef, useState } from 'react';
import type { Subtitle } from '../../api/types';
import { CheckIcon } from '../../components/PageIcons';
import { useT } from '../../i18n/I18nProvider';
import { htmlLangOf } from './useSubtitles';
import './subtitles.css';

interface SubtitleMenuProps {
  subtitles: Subtitle[];
  /** The language shown, or null when subtitles are off. */
  active: string | null;
  onChoose: (choice: 'off' | string) => void;
}

const CaptionsIcon = () => (
  <svg width={22} height={22} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
    <rect x="3" y="5" width="18" height="14" rx="2.5" />
    <path d="M10.5 10.2a2 2 0 1 0 0 3.6M17 10.2a2 2 0 1 0 0 3.6" />
  </svg>
);

/** The player's subtitle button and its menu: off, or one of the episode's languages (a menu of radio items, keyboard-operable). */
export function SubtitleMenu({ subtitles, active, onChoose }: SubtitleMenuProps) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const current = active ?? 'off';
  const options = [{ value: 'off', label: t('player.subtitlesOff'), lang: undefined }, ...subtitles.map((subtitle) => ({ value: subtitle.lang, label: subtitle.label, lang: htmlLangOf(subtitle.lang) }))];

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>('[aria-checked="true"]')?.focus();
    const away = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const onKeyDown = (event: React.KeyboardEvent) => {
    // Inside the menu the keys are the menu's, not the player's shortcuts.
    event.stopPropagation();
    const items = Array.from(menu.current?.querySelectorAll<HTMLElement>('[role="menuitemradio"]') ?? []);
    const at = items.indexOf(document.activeElement as HTMLElement);
    const targets: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 };
    if (event.key === 'Escape') {
      event.preventDefault();
      close();
    } else if (event.key === 'Tab') {
      setOpen(false);
    } else if (event.key in targets) {
      event.preventDefault();
      items[(targets[event.key]! + items.length) % items.length]?.focus();
    }
  };

  return (
    <div className="subtitle-menu">
      <button
        ref={button}
        type="button"
        className={`icon-button subtitle-menu__button${active ? ' subtitle-menu__button--on' : ''}`}
        aria-label={t('player.subtitles')}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((shown) => !shown)}
      >
        <CaptionsIcon />
      </button>
      {open && (
        <div ref={menu} id={menuId} role="menu" aria-label={t('player.subtitles')} className="subtitle-menu__list" onKeyDown={onKeyDown}>
          {options.map((option) => (
            <button
              key={option.value}
              type="button"
              role="menuitemradio"
              aria-checked={option.value === current}
              lang={option.lang}
              tabIndex={-1}
              className="subtitle-menu__item"
              onClick={() => {
                onChoose(option.value);
                close();
              }}
            >
              <CheckIcon size={16} className="subtitle-menu__check" />
              {option.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
