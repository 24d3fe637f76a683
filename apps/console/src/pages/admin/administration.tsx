import { useRoute } from 'preact-iso';
import { useMe } from '../../auth/me';
import { Page } from '../../components/page';
import { Empty } from '../../components/states';
import { oneOf } from '../../components/url-state';
import { Access } from './access';
import { People } from './people';
import { Audit, Config, Flags } from './settings';

const SECTIONS = [
  ['access', 'Auth types and IdPs'],
  ['people', 'Teams and users'],
  ['flags', 'Feature flags'],
  ['config', 'Configuration'],
  ['audit', 'Audit log'],
] as const;

/** System Admins only: the navigation hides it from others, and the API refuses them anyway. */
export default function Administration() {
  const me = useMe();
  const { params } = useRoute();
  const section = oneOf(
    params.section,
    SECTIONS.map(([id]) => id),
    'access',
  );
  if (!me.is_system_admin) {
    return (
      <Page title="Administration">
        <Empty title="Administration is for System Admins">Ask a System Admin of your tenant if you need a change here.</Empty>
      </Page>
    );
  }
  const tabs = (
    <nav class="tabs" aria-label="Administration sections">
      {SECTIONS.map(([id, label]) => (
        <a key={id} href={`/admin/${id}`} aria-current={section === id ? 'page' : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
  return (
    <Page title="Administration" subtitle="Authorization, people, flags and configuration of this tenant." toolbar={tabs}>
      {section === 'access' && <Access idp={me.idp_id} />}
      {section === 'people' && <People />}
      {section === 'flags' && <Flags />}
      {section === 'config' && <Config />}
      {section === 'audit' && <Audit />}
    </Page>
  );
}
