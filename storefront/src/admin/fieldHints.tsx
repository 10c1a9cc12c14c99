/**
 * A form's per-field problems, each shown under its field and pointed at by it (aria-invalid,
 * aria-describedby), so a screen reader reads the problem with the field.
 */
export function fieldHints<Name extends string>(formId: string, problems: Partial<Record<Name, string>>) {
  return {
    problemOf: (name: Name) =>
      problems[name] ? (
        <span id={`${formId}-${name}`} className="console-error-text">
          {problems[name]}
        </span>
      ) : null,
    described: (name: Name) => (problems[name] ? { 'aria-invalid': true, 'aria-describedby': `${formId}-${name}` } : {}),
  };
}
