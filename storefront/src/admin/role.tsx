import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { admin, type Credential, type Role } from './api';

const rank: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/**
 * The signed-in person's role, for what the console offers (a section, a button); the API decides
 * what is allowed whatever is shown. The admin token acts as an admin; a member's role is their
 * account's as an operator lists it. Undefined until known, and when it cannot be read.
 */
function useRoleOf(credential: Credential): Role | undefined {
  const session = credential.kind === 'session' ? credential : null;
  const role = useQuery({
    queryKey: ['admin', 'role', session?.token],
    enabled: session !== null,
    staleTime: Infinity,
    queryFn: async () => {
      const id = session!.id ?? (await admin.me()).id;
      const found = await admin.users({ query: id }, 1, 1);
      return found.items.find((user) => user.id === id)?.role ?? 'viewer';
    },
  });
  return session ? role.data : 'admin';
}

const Context = createContext<Role | undefined>(undefined);

export function ConsoleRoleProvider({ credential, children }: { credential: Credential; children: ReactNode }) {
  return <Context.Provider value={useRoleOf(credential)}>{children}</Context.Provider>;
}

/** Whether the signed-in person holds `least` or more; false while their role is unknown. */
export function useMayAct(least: Exclude<Role, 'viewer'>): boolean {
  const role = useContext(Context);
  return role !== undefined && rank[role] >= rank[least];
}
