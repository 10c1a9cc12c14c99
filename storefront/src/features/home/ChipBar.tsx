interface Chip {
  id: string;
  label: string;
}

interface ChipBarProps {
  label: string;
  chips: Chip[];
  selected: string;
  onSelect: (id: string) => void;
}

/** A row of toggle chips, e.g. the categories to switch between. */
export function ChipBar({ label, chips, selected, onSelect }: ChipBarProps) {
  return (
    <div className="chip-bar" role="group" aria-label={label}>
      {chips.map((chip) => (
        <button
          key={chip.id}
          type="button"
          className="chip chip--button"
          aria-pressed={chip.id === selected}
          onClick={() => onSelect(chip.id)}
        >
          {chip.label}
        </button>
      ))}
    </div>
  );
}
