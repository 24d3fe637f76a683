import { Page } from '../components/page';
import { Empty } from '../components/states';

export default function NotFound() {
  return (
    <Page title="Page not found">
      <Empty title="There is no page at this address.">
        <a href="/">Back to the overview</a>
      </Empty>
    </Page>
  );
}
