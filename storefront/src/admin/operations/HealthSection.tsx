import { useQuery } from '@tanstack/react-query';
import { admin } from '../api';
import { useConsoleI18n } from '../i18n';
import { QueryStates } from '../QueryStates';
import type { ConsoleKey } from '../texts';
import { REFRESH_MS } from './JobsSection';

const stateClass = (state: string) => `console-status console-status--${state === 'up' ? 'ready' : state === 'down' ? 'failed' : state}`;

/** The site's parts and modules, up or down, with the gateway's circuits (GET /api/admin/health). */
export function HealthSection() {
  const { t } = useConsoleI18n();
  const health = useQuery({ queryKey: ['admin', 'health'], queryFn: admin.health, refetchInterval: REFRESH_MS });
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">{t('health.title')}</h2>
      <p className="console-muted">{t('health.intro')}</p>
      <QueryStates query={health}>
        {(data) => (
          <>
            <div className="console-table-wrap">
              <table className="console-table">
                <caption>{t('health.parts')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('health.part')}</th>
                    <th scope="col">{t('health.kind')}</th>
                    <th scope="col">{t('health.state')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.parts.map((part) => (
                    <tr key={part.name}>
                      <th scope="row">{t(`health.part.${part.name}` as ConsoleKey)}</th>
                      <td>{part.kind}</td>
                      <td>
                        <span className={stateClass(part.state)}>{t(`health.state.${part.state}` as ConsoleKey)}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="console-table-wrap">
              <table className="console-table">
                <caption>{t('health.services')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('health.service')}</th>
                    <th scope="col">{t('health.runs')}</th>
                    <th scope="col">{t('health.state')}</th>
                    <th scope="col">{t('health.circuit')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.services.map((service) => (
                    <tr key={service.name}>
                      <th scope="row">{service.name}</th>
                      <td>{t(`health.runs.${service.runs}` as ConsoleKey)}</td>
                      <td>
                        <span className={stateClass(service.state)}>{t(`health.state.${service.state}` as ConsoleKey)}</span>
                      </td>
                      <td>{service.circuit ? <span className={stateClass(service.circuit === 'closed' ? 'up' : 'down')}>{t(`health.circuit.${service.circuit}` as ConsoleKey)}</span> : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </QueryStates>
    </section>
  );
}
