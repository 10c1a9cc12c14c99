import { act, cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter, useNavigate } from 'react-router-dom';
import { beforeEach, describe, expect, it } from 'vitest';
import { KeepAttribution } from '../router';
import { keepAttribution, readAttribution, readClickIds } from './attribution';
import { STORAGE_KEYS } from './storage';

beforeEach(() => localStorage.clear());

describe('attribution kept from the landing URL', () => {
  it('saves token as the referrer token and fbclid and ttclid under one click-id key', () => {
    keepAttribution('?token=ref-1&fbclid=fb-1&ttclid=tt-1&other=x');
    expect(localStorage.getItem(STORAGE_KEYS.referrerToken)).toBe('ref-1');
    expect(JSON.parse(localStorage.getItem(STORAGE_KEYS.clickIds)!)).toEqual({ fbclid: 'fb-1', ttclid: 'tt-1' });
    expect(localStorage.length).toBe(2);
  });

  it('keeps earlier values a later URL does not carry', () => {
    keepAttribution('?token=ref-1&fbclid=fb-1');
    keepAttribution('?ttclid=tt-2');
    keepAttribution('?page=3');
    expect(readAttribution()).toEqual({ referrerToken: 'ref-1', fbclid: 'fb-1', ttclid: 'tt-2' });
  });

  it('ignores a damaged click-id entry', () => {
    localStorage.setItem(STORAGE_KEYS.clickIds, '{not json');
    expect(readClickIds()).toEqual({});
  });

  it('runs on every navigation, before the page it opens', async () => {
    function Navigate() {
      const navigate = useNavigate();
      return <button onClick={() => navigate('/search?fbclid=fb-7')}>go</button>;
    }
    render(
      <MemoryRouter initialEntries={['/videos/v1?token=ref-9&ttclid=tt-9']}>
        <KeepAttribution />
        <Navigate />
      </MemoryRouter>,
    );
    expect(readAttribution()).toEqual({ referrerToken: 'ref-9', ttclid: 'tt-9' });
    act(() => screen.getByRole('button').click());
    expect(readAttribution()).toEqual({ referrerToken: 'ref-9', ttclid: 'tt-9', fbclid: 'fb-7' });
    cleanup();
  });
});
