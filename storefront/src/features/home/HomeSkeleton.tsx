import { useT } from '../../i18n/I18nProvider';

/** The home page's shape while it loads, so nothing jumps when the content arrives. */
export function HomeSkeleton() {
  const t = useT();
  return (
    <div className="home" aria-busy="true">
      <p className="visually-hidden" role="status">
        {t('list.loading')}
      </p>
      <div className="skeleton skeleton--hero" />
      {[0, 1].map((row) => (
        <RowSkeleton key={row} />
      ))}
    </div>
  );
}

/** A row of posters while it loads: a title and six tiles, the height of the row to come. */
export function RowSkeleton() {
  return (
    <div className="row" aria-hidden="true">
      <div className="skeleton skeleton--title" />
      <div className="row__track">
        {[0, 1, 2, 3, 4, 5].map((tile) => (
          <div key={tile} className="skeleton skeleton--tile" />
        ))}
      </div>
    </div>
  );
}
