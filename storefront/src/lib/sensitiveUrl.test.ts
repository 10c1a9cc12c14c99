import { afterEach, describe, expect, it } from 'vitest';
import { landingSecret, scrubText, scrubUrl, stripLandingSecrets } from './sensitiveUrl';

const RESET = 'Zq3cV8hK2mN5pR7tW9yB1dF4gJ6kL0xA_sE-uI3oP8q';

afterEach(() => window.history.replaceState(null, '', '/'));

describe('addresses that leave the page', () => {
  it('lose every secret parameter of their query and fragment, and keep the rest as written', () => {
    expect(scrubUrl(`https://shorts.example/retrievePassword?reset=${RESET}`)).toBe('https://shorts.example/retrievePassword');
    expect(scrubUrl(`/login?oauth=${RESET}&redirect=%2Fvideos%2Fv1`)).toBe('/login?redirect=%2Fvideos%2Fv1');
    expect(scrubUrl('/api/user/oauth/google/callback?code=4%2F0Ab&state=s3cret&scope=email')).toBe('/api/user/oauth/google/callback?scope=email');
    expect(scrubUrl('/?token=ref-1&fbclid=fb-1&utm_source=tiktok')).toBe('/?fbclid=fb-1&utm_source=tiktok');
    expect(scrubUrl('/shop/result?orderId=o1&payment_intent_client_secret=pi_1_secret_2&redirect_status=succeeded')).toBe('/shop/result?orderId=o1&redirect_status=succeeded');
    // Names as a browser may encode or capitalise them; an OAuth implicit answer in the fragment; a plain anchor.
    expect(scrubUrl('/verify?%72eset=x&VERIFY=y&Access_Token=z')).toBe('/verify');
    expect(scrubUrl('/cb#access_token=at&token_type=bearer')).toBe('/cb#token_type=bearer');
    expect(scrubUrl('/videos/v1?ep=2#episodes')).toBe('/videos/v1?ep=2#episodes');
    expect(scrubUrl('/my')).toBe('/my');
  });

  it('have the values of secret parameters replaced in free text, an error message say', () => {
    expect(scrubText(`GET /retrievePassword?reset=${RESET} failed; see https://x.example/a?b=1&code=c0de&state=st`)).toBe(
      'GET /retrievePassword?reset=[Filtered] failed; see https://x.example/a?b=1&code=[Filtered]&state=[Filtered]',
    );
    expect(scrubText('nothing secret: /videos/v1?ep=2')).toBe('nothing secret: /videos/v1?ep=2');
  });
});

describe('a landing address with a secret', () => {
  it('is read into memory and replaced, before anything else runs, by the address without it', () => {
    window.history.replaceState({ kept: true }, '', `/retrievePassword?token=ref-1&reset=${RESET}&fbclid=fb%201#top`);
    const entries = window.history.length;
    stripLandingSecrets();
    expect(window.location.pathname + window.location.search + window.location.hash).toBe('/retrievePassword?token=ref-1&fbclid=fb%201#top');
    expect(window.history.length).toBe(entries);
    expect(window.history.state).toEqual({ kept: true });
    expect(landingSecret('reset')).toBe(RESET);

    window.history.replaceState(null, '', `/login?oauth=code-1&redirect=%2Fmy`);
    stripLandingSecrets();
    expect(window.location.search).toBe('?redirect=%2Fmy');
    expect(landingSecret('oauth')).toBe('code-1');
  });

  it('leaves an address without secrets as it is', () => {
    window.history.replaceState(null, '', '/?token=ref-1&fbclid=fb-1');
    stripLandingSecrets();
    expect(window.location.search).toBe('?token=ref-1&fbclid=fb-1');
  });
});
