import { Component, type ReactNode } from 'react';
import { RouteError } from './RouteError';

interface PageErrorBoundaryProps {
  children: ReactNode;
  /** A new value (the next page's path) tries again. */
  resetKey?: string;
}

/** Shows RouteError in place of what failed to load or render, e.g. a page chunk gone after a deploy. */
export class PageErrorBoundary extends Component<PageErrorBoundaryProps, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidUpdate(previous: PageErrorBoundaryProps) {
    if (this.state.failed && previous.resetKey !== this.props.resetKey) this.setState({ failed: false });
  }

  render() {
    return this.state.failed ? <RouteError /> : this.props.children;
  }
}
