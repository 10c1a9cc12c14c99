import { DocumentPage } from './DocumentPage';

export function ContentPolicyPage() {
  return (
    <DocumentPage
      title="footer.content"
      updated="November 1, 2026"
      intro={<p>Cliffhanger publishes scripted short dramas made by licensed studios. This policy describes what we publish, how we label it and how to report a problem.</p>}
      sections={[
        {
          heading: 'What we publish',
          body: <p>Fiction for adult and teen audiences: romance, revenge, family, fantasy and thriller stories. Series may show mild violence, strong language or romantic scenes, and their categories say so.</p>,
        },
        {
          heading: 'What we do not publish',
          body: (
            <ul>
              <li>Sexual content involving minors, or explicit sexual content of any kind.</li>
              <li>Content that promotes hatred, terrorism, self-harm or real-world violence.</li>
              <li>Content that infringes someone else’s copyright or uses a person’s likeness without consent.</li>
            </ul>
          ),
        },
        {
          heading: 'Reporting content',
          body: <p>If you believe a series breaks this policy or infringes your rights, write to content@cliffhanger.example with the series name and episode number. We review every report within 72 hours and remove content that breaks the rules.</p>,
        },
      ]}
    />
  );
}
