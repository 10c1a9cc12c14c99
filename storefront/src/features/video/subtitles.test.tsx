import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Subtitle } from '../../api/types';
import { I18nProvider } from '../../i18n/I18nProvider';
import { SubtitleMenu } from './SubtitleMenu';
import { pickSubtitle } from './useSubtitles';

const track = (lang: string, label: string): Subtitle => ({ lang, label, url: `/media/g/grant/episodes/e1/subtitles-${lang}-0a1b2c3d.vtt` });
const english = track('en', 'English');
const spanish = track('es', 'Español');
const german = track('dy', 'Deutsch');

afterEach(cleanup);

describe('which subtitles show', () => {
  it("is the interface language's track by default, none when the episode has no such track", () => {
    expect(pickSubtitle([english, spanish], 'auto', 'es')).toBe(spanish);
    expect(pickSubtitle([english, spanish], 'auto', 'en')).toBe(english);
    expect(pickSubtitle([english, spanish], 'auto', 'pt')).toBeNull();
    expect(pickSubtitle([], 'auto', 'en')).toBeNull();
  });

  it("is the viewer's pick when the episode has it, else the interface language's; never any once turned off", () => {
    expect(pickSubtitle([english, spanish, german], 'dy', 'en')).toBe(german);
    expect(pickSubtitle([english, spanish], 'dy', 'en')).toBe(english);
    expect(pickSubtitle([english, spanish], 'off', 'en')).toBeNull();
  });
});

describe('the subtitle menu', () => {
  const open = async (active: string | null, onChoose = vi.fn()) => {
    render(
      <I18nProvider>
        <SubtitleMenu subtitles={[english, spanish, german]} active={active} onChoose={onChoose} />
      </I18nProvider>,
    );
    const button = await screen.findByRole('button', { name: 'Subtitles' });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(button);
    return { button, onChoose, menu: screen.getByRole('menu', { name: 'Subtitles' }) };
  };

  it('offers off and every language, each in its own name, the one showing checked and focused', async () => {
    const { button } = await open('es');
    expect(button.getAttribute('aria-expanded')).toBe('true');
    const items = screen.getAllByRole('menuitemradio');
    expect(items.map((item) => [item.textContent, item.getAttribute('aria-checked'), item.getAttribute('lang')])).toEqual([
      ['Off', 'false', null],
      ['English', 'false', 'en'],
      ['Español', 'true', 'es'],
      ['Deutsch', 'false', 'de'],
    ]);
    expect(document.activeElement).toBe(items[2]);
  });

  it('is worked with the keyboard: arrows move round the items, Escape closes back to the button', async () => {
    const { button, menu, onChoose } = await open(null);
    const items = screen.getAllByRole('menuitemradio');
    expect(document.activeElement).toBe(items[0]);
    fireEvent.keyDown(menu, { key: 'ArrowUp' });
    expect(document.activeElement).toBe(items[3]);
    fireEvent.keyDown(menu, { key: 'ArrowDown' });
    fireEvent.keyDown(menu, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(items[1]);
    fireEvent.keyDown(menu, { key: 'Escape' });
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(button);
    expect(onChoose).not.toHaveBeenCalled();
  });

  it('chooses a language or off with a click and closes', async () => {
    const { button, onChoose } = await open('en');
    fireEvent.click(screen.getByRole('menuitemradio', { name: 'Español' }));
    expect(onChoose).toHaveBeenLastCalledWith('es');
    expect(screen.queryByRole('menu')).toBeNull();
    fireEvent.click(button);
    fireEvent.click(screen.getByRole('menuitemradio', { name: 'Off' }));
    expect(onChoose).toHaveBeenLastCalledWith('off');
  });
});
