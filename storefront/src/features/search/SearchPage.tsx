import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { SearchIcon } from '../../components/Icons';
import { ChevronRightIcon, HistoryIcon, TrashIcon } from '../../components/PageIcons';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { usePopularSeries, useSearchPreview } from './queries';
import { clearSearchHistory, readSearchHistory, rememberSearch } from './searchHistory';
import { useDebouncedValue } from './useDebouncedValue';
import './search.css';

export function SearchPage() {
  const t = useT();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const [text, setText] = useState(params.get('q') ?? '');
  const [history, setHistory] = useState(readSearchHistory);
  const keyword = useDebouncedValue(text.trim());
  const preview = useSearchPreview(keyword);
  const popular = usePopularSeries();
  useDocumentTitle(t('nav.search'));
  // The field takes the focus when the page opens, by a tap on the search button as on a first load
  // (the autofocus attribute only counts for a document's first focus).
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);

  const openResults = (value: string) => {
    const cleaned = value.trim();
    if (!cleaned) return;
    setHistory(rememberSearch(cleaned));
    navigate(`/searchDetail/${encodeURIComponent(cleaned)}`);
  };

  const onChange = (value: string) => {
    setText(value);
    setParams(value ? { q: value } : {}, { replace: true });
  };

  const results = preview.data?.items ?? [];
  return (
    <div className="page search">
      <form
        className="search__bar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          openResults(text);
        }}
      >
        <label className="search__field">
          <SearchIcon size={18} />
          <span className="visually-hidden">{t('search.label')}</span>
          <input
            ref={field}
            type="search"
            value={text}
            onChange={(event) => onChange(event.target.value)}
            placeholder={t('search.placeholder')}
            enterKeyHint="search"
            autoComplete="off"
          />
        </label>
        <button type="button" className="search__cancel" onClick={() => (window.history.length > 1 ? navigate(-1) : navigate('/'))}>
          {t('search.cancel')}
        </button>
      </form>

      {keyword ? (
        <section aria-live="polite" aria-busy={preview.isFetching}>
          <div className="row__head">
            <h1 className="section-title">{t('search.results', { keyword })}</h1>
            {preview.data?.hasMore && (
              <Link to={`/searchDetail/${encodeURIComponent(keyword)}`} className="row__more" onClick={() => setHistory(rememberSearch(keyword))}>
                {t('search.seeAll')} <ChevronRightIcon size={16} />
              </Link>
            )}
          </div>
          {preview.isPending ? (
            <p className="list-footer__text">{t('list.loading')}</p>
          ) : results.length === 0 ? (
            <p className="list-state">{t('search.noResults', { keyword })}</p>
          ) : (
            <ul className="poster-grid">
              {results.map((video) => (
                <li key={video.id}>
                  <VideoTile video={video} onOpen={() => setHistory(rememberSearch(keyword))} />
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : (
        <>
          {history.length > 0 && (
            <section className="search__history" aria-labelledby="search-history">
              <div className="row__head">
                <h2 id="search-history" className="section-title">
                  <HistoryIcon size={18} /> {t('search.history')}
                </h2>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={t('search.clearHistory')}
                  onClick={() => {
                    clearSearchHistory();
                    setHistory([]);
                  }}
                >
                  <TrashIcon size={18} />
                </button>
              </div>
              <ul className="chips" data-testid="search-history">
                {history.map((entry) => (
                  <li key={entry}>
                    <button type="button" className="chip chip--button" onClick={() => openResults(entry)}>
                      {entry}
                    </button>
                  </li>
                ))}
              </ul>
            </section>
          )}
          {popular.data && popular.data.length > 0 && (
            <section aria-labelledby="search-popular">
              <h2 id="search-popular" className="section-title">
                {t('search.popular')}
              </h2>
              <ul className="poster-grid">
                {popular.data.map((video) => (
                  <li key={video.id}>
                    <VideoTile video={video} />
                  </li>
                ))}
              </ul>
            </section>
          )}
        </>
      )}
    </div>
  );
}
