import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper, tableFeatures, useTable } from '@tanstack/react-table';
import { useMemo } from 'react';
import { useAddressFilter } from '../addressFilter';
import { admin, formatTime, type AdminVideo, type VideoFilter } from '../api';
import { DataTable } from '../DataTable';
import { Paging } from '../Paging';
import { QueryStates } from '../QueryStates';
import { useConsoleI18n } from '../i18n';

export const SERIES_PAGE_SIZE = 20;
const FILTERS = ['query', 'tag', 'visibility', 'failed'] as const;
const features = tableFeatures({});
const column = createColumnHelper<typeof features, AdminVideo>();
const NO_SERIES: AdminVideo[] = [];

/** The filter as the address holds it (?query=…&tag=…&visibility=…&failed=true&page=…). */
function filterOf(params: URLSearchParams): VideoFilter {
  const visibility = params.get('visibility');
  return {
    query: params.get('query') || undefined,
    tag: params.get('tag') || undefined,
    visibility: visibility === 'published' || visibility === 'hidden' ? visibility : undefined,
    failed: params.get('failed') === 'true' ? 'true' : undefined,
  };
}

/** Every series, hidden ones too (GET /api/admin/videos): searched by title, filtered, a page at a time; the filter lives in the address. */
export function SeriesList({ onOpen }: { onOpen: (id: string) => void }) {
  const { t, locale } = useConsoleI18n();
  const { params, page, search, goTo } = useAddressFilter(FILTERS);
  const filter = filterOf(params);
  const series = useQuery({
    queryKey: ['admin', 'videos', filter, page],
    queryFn: () => admin.videos(filter, page, SERIES_PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  const tags = useQuery({ queryKey: ['admin', 'tags'], queryFn: admin.tags, staleTime: 60_000 });

  const columns = useMemo(
    () =>
      column.columns([
        column.accessor('title', {
          header: () => t('content.fieldTitle'),
          cell: (info) => (
            <button type="button" className="console-link" onClick={() => onOpen(info.row.original.id)}>
              {info.getValue()}
            </button>
          ),
        }),
        column.accessor('hidden', {
          header: () => t('content.visibility'),
          cell: (info) => (info.getValue() ? t('content.hidden') : t('content.published')),
        }),
        column.accessor('episodeCount', {
          header: () => t('content.episodes'),
          cell: (info) => (
            <>
              {info.getValue()}
              {info.row.original.failedEpisodes > 0 && (
                <span className="console-status console-status--failed"> · {t('content.failedCount', { count: info.row.original.failedEpisodes })}</span>
              )}
            </>
          ),
        }),
        column.accessor('tags', { header: () => t('content.tag'), cell: (info) => info.getValue().join(', ') }),
        column.accessor('priceCoins', { header: () => t('content.price') }),
        column.accessor('createdAt', { header: () => t('orders.created'), cell: (info) => formatTime(info.getValue(), locale) }),
      ]),
    [t, locale, onOpen],
  );
  // Each cell names its column, shown beside it where the table becomes one card per series (phones).
  const headings: Record<string, string> = {
    title: t('content.fieldTitle'),
    hidden: t('content.visibility'),
    episodeCount: t('content.episodes'),
    tags: t('content.tag'),
    priceCoins: t('content.price'),
    createdAt: t('orders.created'),
  };
  const table = useTable({ features, columns, data: series.data?.items ?? NO_SERIES });


  return (
    <>
      <form role="search" aria-label={t('content.search')} className="console-filters" onSubmit={search}>
        <label>
          {t('content.query')}
          <input name="query" type="search" defaultValue={filter.query ?? ''} />
        </label>
        <label>
          {t('content.tag')}
          <select name="tag" defaultValue={filter.tag ?? ''} key={tags.data ? 'tags' : 'loading'}>
            <option value="">{t('content.anyTag')}</option>
            {tags.data?.map((tag) => (
              <option key={tag.id} value={tag.id}>
                {tag.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('content.visibility')}
          <select name="visibility" defaultValue={filter.visibility ?? ''}>
            <option value="">{t('content.anyVisibility')}</option>
            <option value="published">{t('content.published')}</option>
            <option value="hidden">{t('content.hidden')}</option>
          </select>
        </label>
        <label className="console-inline">
          <input name="failed" type="checkbox" value="true" defaultChecked={filter.failed === 'true'} />
          {t('content.failedOnly')}
        </label>
        <button type="submit" className="console-button console-button--primary">
          {t('content.submit')}
        </button>
      </form>
      <QueryStates query={series} empty={t('content.none')}>
        {() => <DataTable table={table} labelledBy="content-title" busy={series.isFetching} headings={headings} />}
      </QueryStates>
      {series.data && <Paging page={page} hasMore={series.data.hasMore} onPage={goTo} />}
    </>
  );
}
