import { useRoute } from 'preact-iso';
import { useMe } from '../../auth/me';
import { Empty, PageHeader } from '../../components/states';
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
  const section = SECTIONS.find(([id]) => id === params.section)?.[0] ?? 'access';
  if (!me.is_system_admin) {
    return (
      <div class="page">
        <PageHeader title="Administration" />
        <Empty title="Administration is for System Admins">Ask a System Admin of your tenant if you need a change here.</Empty>
      </div>
    );
  }
  return (
    <div class="page">
      <PageHeader title="Administration" subtitle="Authorization, people, flags and configuration of this tenant." />
      <nav class="tabs" aria-label="Administration sections">
        {SECTIONS.map(([id, label]) => (
          <a key={id} href={`/admin/${id}`} aria-current={section === id ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {section === 'access' && <Access idp={me.idp_id} />}
      {section === 'people' && <People />}
      {section === 'flags' && <Flags />}
      {section === 'config' && <Config />}
      {section === 'audit' && <Audit />}
    </div>
  );
}
