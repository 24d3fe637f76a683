export default function Page() {
  return <div>todo</div>;
}
