import type { ReactTable, RowData, TableFeatures } from '@tanstack/react-table';

/**
 * A TanStack table drawn the console's way: a header row of its columns, and on phones one card per row,
 * each cell named by `headings` (column id → heading) since the header row is hidden there.
 */
export function DataTable<TFeatures extends TableFeatures, TData extends RowData>({
  table,
  labelledBy,
  busy,
  headings,
}: {
  table: ReactTable<TFeatures, TData>;
  labelledBy: string;
  busy: boolean;
  headings: Record<string, string>;
}) {
  return (
    <div className="console-table-wrap">
      <table className="console-table console-table--cards" aria-labelledby={labelledBy} aria-busy={busy}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col">
                  <table.FlexRender header={header} />
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id}>
              {row.getAllCells().map((cell) => (
                <td key={cell.id} data-label={headings[cell.column.id]}>
                  <table.FlexRender cell={cell} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
