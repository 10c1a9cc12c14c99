import { useState } from 'react';
import { reportCsv } from '../api';
import { ErrorState } from '../ErrorState';

/** A report's CSV: the link's address is the download's, fetched with the credential (a plain link could not carry it) and saved as `fileName`. */
export function CsvLink({ href, fileName, children }: { href: string; fileName: string; children: string }) {
  const [error, setError] = useState<unknown>(null);
  const download = async () => {
    setError(null);
    try {
      const url = URL.createObjectURL(await reportCsv(href));
      const link = document.createElement('a');
      link.href = url;
      link.download = fileName;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <>
      <a
        className="console-button"
        href={href}
        onClick={(event) => {
          event.preventDefault();
          void download();
        }}
      >
        {children}
      </a>
      {error !== null && <ErrorState error={error} />}
    </>
  );
}
