// The one react-dom function the dashboard uses (@types/react-dom is not installed).
declare module 'react-dom/client' {
  import type { ReactNode } from 'react';
  export function createRoot(container: Element): { render(children: ReactNode): void; unmount(): void };
}
