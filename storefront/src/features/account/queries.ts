import { matchQuery, queryOptions, useMutation, useQuery, useQueryClient, type Query } from '@tanstack/react-query';
import type { User } from '../../api/types';
import { userCalls, type Credentials, type Registration } from '../../api/user';
import { userQueries } from '../../api/userQueries';
import { keepUserId, keepUserToken } from '../../lib/attribution';

/** Lists, favorites and locks: everything cached but the current user belongs to one identity. */
const isPreviousIdentityData = (query: Query) => !matchQuery({ queryKey: userQueries.current().queryKey }, query);

function useSignedIn() {
  const queryClient = useQueryClient();
  return (user: User) => {
    keepUserId(user.id);
    queryClient.setQueryData(userQueries.current().queryKey, user);
    void queryClient.invalidateQueries({ predicate: isPreviousIdentityData });
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

/** The providers this site signs in with; none while unknown or when the call fails. */
export function useSignInProviders() {
  return useQuery(
    queryOptions({ queryKey: ['signInProviders'], queryFn: userCalls.signInProviders, staleTime: Infinity, select: (answer) => answer.providers }),
  );
}

/** Exchanges the one-time code a provider sign-in came back with; the caller's guest list and history come along. */
export function useSignInExchange() {
  const signedIn = useSignedIn();
  return useMutation({
    mutationFn: (code: string) => userCalls.exchangeSignIn(code),
    onSuccess: signedIn,
  });
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => userCalls.logout(),
    // The old token stops working; a fresh current-user call makes this browser a new guest.
    onSettled: async () => {
      keepUserToken(null);
      keepUserId(null);
      queryClient.removeQueries({ predicate: isPreviousIdentityData });
      await queryClient.invalidateQueries({ queryKey: userQueries.current().queryKey });
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

/**
 * Verifies the email of the link the page was opened with, once (the token works once: a query keyed
 * by it runs a single time however often the page renders); the current user is read again after.
 */
export function useVerifyEmail(token: string | null) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: ['verifyEmail', token],
    queryFn: async () => {
      const user = await userCalls.verifyEmail(token!);
      void queryClient.invalidateQueries({ queryKey: userQueries.current().queryKey });
      return user;
    },
    enabled: token !== null,
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
}

export function useResendVerification() {
  return useMutation({ mutationFn: () => userCalls.resendVerification() });
}
