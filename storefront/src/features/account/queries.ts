import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { userCalls, type Credentials, type Registration } from '../../api/user';
import type { User } from '../../api/types';
import { keepUserId, keepUserToken } from '../../lib/attribution';

export const userKey = ['user'] as const;

/** The current user; the first call creates a guest, and the client keeps the x-user-token it answers. */
export function useCurrentUser() {
  const query = useQuery({ queryKey: userKey, queryFn: userCalls.current, staleTime: 60_000 });
  const id = query.data?.id;
  useEffect(() => {
    if (id) keepUserId(id);
  }, [id]);
  return query;
}

function useSignedIn() {
  const queryClient = useQueryClient();
  return (user: User) => {
    keepUserId(user.id);
    queryClient.setQueryData(userKey, user);
    // Lists, favorites and locks belong to the previous identity.
    void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'user' });
  };
}

export function useLogin() {
  const signedIn = useSignedIn();
  return useMutation({ mutationFn: (credentials: Credentials) => userCalls.login(credentials), onSuccess: signedIn });
}

export function useRegister() {
  const signedIn = useSignedIn();
  return useMutation({ mutationFn: (registration: Registration) => userCalls.register(registration), onSuccess: signedIn });
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => userCalls.logout(),
    // The old token stops working; a fresh current-user call makes this browser a new guest.
    onSettled: async () => {
      keepUserToken(null);
      keepUserId(null);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'user' });
      await queryClient.invalidateQueries({ queryKey: userKey });
    },
  });
}

export function useForgotPassword() {
  return useMutation({ mutationFn: (email: string) => userCalls.forgotPassword(email) });
}

export function useResetPassword() {
  return useMutation({
    mutationFn: ({ token, password, confirmPassword }: { token: string; password: string; confirmPassword: string }) =>
      userCalls.resetPassword(token, password, confirmPassword),
  });
}
