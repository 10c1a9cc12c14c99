import { ShareIcon } from '../../components/PageIcons';
import { useT } from '../../i18n/I18nProvider';
import { showToast } from '../../lib/toast';

/** Copies the page link; the result is told with the spec's "Copy Success" or "Copy fail". */
export function ShareButton() {
  const t = useT();
  const share = async () => {
    try {
      await navigator.clipboard.writeText(window.location.href);
      showToast(t('video.copySuccess'), 'success');
    } catch (error) {
      console.error('Unable to copy text:', error);
      showToast(t('video.copyFail'));
    }
  };
  return (
    <button type="button" className="action" onClick={() => void share()}>
      <ShareIcon />
      <span>{t('video.share')}</span>
    </button>
  );
}
