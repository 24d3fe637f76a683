import { Empty, PageHeader } from '../components/states';

export default function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <Empty title="There is no page at this address.">
        <a href="/">Back to the overview</a>
      </Empty>
    </>
  );
}
