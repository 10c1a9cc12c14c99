import { useId } from 'react';
import { useAutoUnlockSetting } from '../api/userQueries';
import { useT } from '../i18n/I18nProvider';

/** The auto-unlock setting as a switch: on, playing on into a locked episode spends its coins without asking. */
export function AutoUnlockSwitch() {
  const t = useT();
  const hintId = useId();
  const setting = useAutoUnlockSetting();
  return (
    <label className="switch">
      <span className="switch__text">
        <span className="switch__label">{t('unlock.auto')}</span>
        <span id={hintId} className="switch__hint">
          {t('unlock.autoHint')}
        </span>
      </span>
      <input
        type="checkbox"
        role="switch"
        className="switch__input"
        checked={setting.enabled}
        aria-describedby={hintId}
        disabled={setting.isPending}
        onChange={(event) => setting.change(event.target.checked)}
      />
    </label>
  );
}
